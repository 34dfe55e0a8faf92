package dev.kipcheck.interop;

import java.nio.charset.StandardCharsets;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Apache Kafka producer: bootstraps against the given address, sends one record to the interop
 * topic (acks=all; Metadata, Produce), prints its partition and offset and exits 0; exits 1 on
 * failure and 124 at the deadline. Idempotence is off, so the producer needs no InitProducerId
 * and stays up (waiting for its Produce answer) against a broker that offers only ApiVersions
 * and Metadata, such as kipcheck's emulated ones in the client-cmd scenarios.
 */
public final class ProduceOne {
    private ProduceOne() {}

    /** Entry point: {@code ProduceOne BOOTSTRAP [TOPIC]}. */
    public static void main(String[] args) {
        String bootstrap = Peer.bootstrap(args, "ProduceOne BOOTSTRAP [TOPIC]");
        String topic = args.length > 1 ? args[1] : Peer.TOPIC;
        Peer.watchdog("ProduceOne");
        Properties p = Peer.common(bootstrap, "kipcheck-java-producer");
        long ms = Peer.opTimeout().toMillis();
        p.put("acks", "all");
        p.put("enable.idempotence", "false");
        p.put("max.block.ms", Long.toString(ms));
        p.put("delivery.timeout.ms", Long.toString(ms));
        p.put("request.timeout.ms", Long.toString(Math.min(ms, 5_000)));
        p.put("linger.ms", "0");
        try (var producer = new KafkaProducer<byte[], byte[]>(p, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            RecordMetadata md = producer.send(new ProducerRecord<>(topic,
                    "k".getBytes(StandardCharsets.UTF_8),
                    "hello from kipcheck interop".getBytes(StandardCharsets.UTF_8)))
                    .get(ms, TimeUnit.MILLISECONDS);
            System.out.println("producer: " + md.topic() + "-" + md.partition() + "@" + md.offset());
        } catch (Exception e) {
            Peer.fail("ProduceOne", e);
        }
        System.exit(0);
    }
}

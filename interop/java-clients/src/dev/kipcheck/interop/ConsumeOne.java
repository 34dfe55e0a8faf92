package dev.kipcheck.interop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Apache Kafka consumer: bootstraps against the given address, looks up the interop topic's
 * partitions (Metadata), assigns them, reads from the beginning (ListOffsets, Fetch) until one
 * record arrives or the poll budget is spent, prints the count and exits 0; exits 1 when the
 * topic's metadata cannot be had and 124 at the deadline.
 */
public final class ConsumeOne {
    private ConsumeOne() {}

    /** Entry point: {@code ConsumeOne BOOTSTRAP [TOPIC]}. */
    public static void main(String[] args) {
        String bootstrap = Peer.bootstrap(args, "ConsumeOne BOOTSTRAP [TOPIC]");
        String topic = args.length > 1 ? args[1] : Peer.TOPIC;
        Peer.watchdog("ConsumeOne");
        Properties p = Peer.common(bootstrap, "kipcheck-java-consumer");
        Duration op = Peer.opTimeout();
        p.put("auto.offset.reset", "earliest");
        p.put("enable.auto.commit", "false");
        try (var consumer = new KafkaConsumer<byte[], byte[]>(p, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            List<PartitionInfo> parts = consumer.partitionsFor(topic, op);
            if (parts == null || parts.isEmpty()) {
                throw new IllegalStateException("topic " + topic + " has no partitions");
            }
            List<TopicPartition> tps = new ArrayList<>();
            for (PartitionInfo pi : parts) {
                tps.add(new TopicPartition(pi.topic(), pi.partition()));
            }
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            long until = System.nanoTime() + op.toNanos();
            int count = 0;
            while (count == 0 && System.nanoTime() < until) {
                ConsumerRecords<byte[], byte[]> recs = consumer.poll(Duration.ofMillis(500));
                count += recs.count();
            }
            System.out.println("consumer: " + tps.size() + " partitions, " + count + " records");
        } catch (Exception e) {
            Peer.fail("ConsumeOne", e);
        }
        System.exit(0);
    }
}

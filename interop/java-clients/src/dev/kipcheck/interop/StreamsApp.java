package dev.kipcheck.interop;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;

/**
 * A Kafka Streams application (interop topic -> upper-case values -> interop topic + "-out"):
 * bootstraps against the given address, makes sure its source topic exists, starts, waits until
 * the application reaches RUNNING (group join, FindCoordinator, OffsetFetch ...), closes and exits
 * 0; exits 1 if it stops in ERROR or never runs, 124 at the deadline.
 */
public final class StreamsApp {
    private StreamsApp() {}

    /** Entry point: {@code StreamsApp BOOTSTRAP [TOPIC]}. */
    public static void main(String[] args) throws Exception {
        String bootstrap = Peer.bootstrap(args, "StreamsApp BOOTSTRAP [TOPIC]");
        String topic = args.length > 1 ? args[1] : Peer.TOPIC;
        Peer.watchdog("StreamsApp");
        long ms = Peer.opTimeout().toMillis();
        Path state = Files.createTempDirectory("kipcheck-streams");
        try (Admin admin = Admin.create(Peer.common(bootstrap, "kipcheck-java-streams-admin"))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1)))
                    .all().get(ms, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                Peer.fail("StreamsApp", e);
            }
        } catch (Exception e) {
            Peer.fail("StreamsApp", e);
        }

        Properties p = Peer.common(bootstrap, "kipcheck-java-streams");
        // A fresh group per run: Streams does not leave its group on close, so a second run
        // under the same id waits out the first one's session (45 s) before it can reach RUNNING.
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, "kipcheck-interop-streams-"
                + ProcessHandle.current().pid() + "-" + System.currentTimeMillis());
        p.put(StreamsConfig.STATE_DIR_CONFIG, state.toString());
        p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.ByteArraySerde.class);
        p.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, "1");
        p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, "1");
        StreamsBuilder b = new StreamsBuilder();
        b.<byte[], String>stream(topic).mapValues(v -> v == null ? null : v.toUpperCase())
                .to(topic + "-out");
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch failed = new CountDownLatch(1);
        try (KafkaStreams streams = new KafkaStreams(b.build(), p)) {
            streams.setStateListener((now, before) -> {
                if (now == KafkaStreams.State.RUNNING) {
                    running.countDown();
                } else if (now == KafkaStreams.State.ERROR) {
                    failed.countDown();
                }
            });
            streams.start();
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2 * ms);
            while (System.nanoTime() < until && running.getCount() > 0 && failed.getCount() > 0) {
                running.await(100, TimeUnit.MILLISECONDS);
            }
            boolean ok = running.getCount() == 0;
            streams.close(java.time.Duration.ofMillis(ms / 2));
            if (!ok) {
                Peer.fail("StreamsApp", new IllegalStateException("state " + streams.state()));
            }
            System.out.println("streams: reached RUNNING");
        }
        System.exit(0);
    }
}

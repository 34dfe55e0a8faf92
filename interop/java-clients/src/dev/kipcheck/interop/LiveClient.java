package dev.kipcheck.interop;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The Java clients in kipcheck's live-client form ({@code client-cmd:}, docs/live-clients.md):
 * {@code LiveClient --config FILE [--profile FILE] [--bootstrap HOST:PORT]}. Builds the client
 * {@code kipcheck.client.type} names (producer, consumer, admin, share_consumer, streams) from the
 * properties file with every {@code kipcheck.*} key removed (the Java clients take the file's
 * names as they are; an unknown key is logged by the client itself as unused), starts its first
 * connection (producer/consumer/share consumer: partitionsFor on the interop topic; admin:
 * listTopics; Streams: start), answers each {@code user_request <id>} line on stdin with
 * {@code released <id>} once that first operation has returned or failed (these clients do not
 * implement KIP-1324: there is no handshake to wait for), and exits 0 when stdin closes. The
 * profile is not used. {@code --bootstrap} is used only when the file has no bootstrap.servers.
 */
public final class LiveClient {
    private LiveClient() {}

    /** Entry point. */
    public static void main(String[] args) throws Exception {
        String config = null;
        String bootstrap = null;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--config" -> config = args[i + 1];
                case "--profile" -> { }
                case "--bootstrap" -> bootstrap = args[i + 1];
                default -> usage("unknown argument " + args[i]);
            }
        }
        if (config == null || args.length % 2 != 0) {
            usage("--config FILE is required");
        }
        Properties file = new Properties();
        try (Reader r = Files.newBufferedReader(Path.of(config), StandardCharsets.UTF_8)) {
            file.load(r);
        }
        Properties props = new Properties();
        for (String k : file.stringPropertyNames()) {
            if (!k.startsWith("kipcheck.")) {
                props.setProperty(k, file.getProperty(k));
            }
        }
        if (bootstrap != null && props.getProperty("bootstrap.servers", "").isBlank()) {
            props.setProperty("bootstrap.servers", bootstrap);
        }
        String type = file.getProperty("kipcheck.client.type", "producer");
        CountDownLatch ready = new CountDownLatch(1);
        AutoCloseable[] client = new AutoCloseable[1];
        Thread build = new Thread(() -> {
            try {
                client[0] = start(type, props);
            } catch (Exception e) {
                System.err.println("LiveClient: " + type + " failed: " + e);
            } finally {
                ready.countDown();
            }
        }, "kipcheck-live-client");
        build.setDaemon(true);
        build.start();

        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            String[] parts = line.trim().split("\\s+");
            if (parts.length == 2 && parts[0].equals("user_request") && parts[1].matches("[0-9]+")) {
                String id = parts[1];
                Thread t = new Thread(() -> {
                    try {
                        ready.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    synchronized (System.out) {
                        System.out.println("released " + id);
                        System.out.flush();
                    }
                });
                t.setDaemon(true);
                t.start();
            } else if (!line.isBlank()) {
                System.err.println("LiveClient: ignored stdin line " + line);
            }
        }
        Thread closer = new Thread(() -> {
            try {
                if (client[0] != null) {
                    client[0].close();
                }
            } catch (Exception e) {
                // exiting anyway
            }
        });
        closer.setDaemon(true);
        closer.start();
        closer.join(1500);
        System.out.flush();
        Runtime.getRuntime().halt(0);
    }

    private static void usage(String why) {
        System.err.println("LiveClient: " + why
                + "\nusage: LiveClient --config FILE [--profile FILE] [--bootstrap HOST:PORT]");
        System.exit(2);
    }

    /** Builds the client and runs its first operation; returns it for closing. */
    private static AutoCloseable start(String type, Properties p) throws Exception {
        Duration op = Duration.ofMillis(Peer.opTimeout().toMillis());
        switch (type) {
            case "producer" -> {
                var c = new KafkaProducer<byte[], byte[]>(p, new ByteArraySerializer(), new ByteArraySerializer());
                first(() -> c.partitionsFor(Peer.TOPIC));
                return c;
            }
            case "consumer" -> {
                var c = new KafkaConsumer<byte[], byte[]>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
                first(() -> c.partitionsFor(Peer.TOPIC, op));
                return c;
            }
            case "share_consumer" -> {
                var c = new KafkaShareConsumer<byte[], byte[]>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
                c.subscribe(List.of(Peer.TOPIC));
                first(() -> c.poll(Duration.ofMillis(100)));
                return c;
            }
            case "admin" -> {
                Admin c = Admin.create(p);
                first(() -> c.listTopics().names().get(op.toMillis(), TimeUnit.MILLISECONDS));
                return c;
            }
            case "streams" -> {
                p.putIfAbsent(StreamsConfig.APPLICATION_ID_CONFIG, "kipcheck-live-streams");
                p.putIfAbsent(StreamsConfig.STATE_DIR_CONFIG, Files.createTempDirectory("kipcheck-streams").toString());
                p.putIfAbsent(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.ByteArraySerde.class.getName());
                p.putIfAbsent(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.ByteArraySerde.class.getName());
                StreamsBuilder b = new StreamsBuilder();
                b.<byte[], byte[]>stream(Peer.TOPIC).to(Peer.TOPIC + "-out");
                KafkaStreams c = new KafkaStreams(b.build(), p);
                c.start();
                return c;
            }
            default -> throw new IllegalArgumentException("unknown kipcheck.client.type " + type);
        }
    }

    /** A first operation whose failure is reported but does not stop the program. */
    private interface Op {
        Object run() throws Exception;
    }

    private static void first(Op op) {
        try {
            op.run();
        } catch (Exception e) {
            System.err.println("LiveClient: first operation failed: " + e);
        }
    }
}

package dev.kipcheck.interop;

import java.time.Duration;
import java.util.Properties;

/**
 * What every interop client program shares: argument parsing, bounded timeouts, and a watchdog
 * that ends the JVM if an operation outlives its deadline. It performs no Kafka operation itself.
 */
final class Peer {
    /** Default hard deadline for one program run; KIPCHECK_CLIENT_DEADLINE_MS overrides it. */
    static final long DEFAULT_DEADLINE_MS = 30_000;
    /** The topic the producer writes, the consumer reads and the Streams app consumes. */
    static final String TOPIC = "kipcheck-interop";

    private Peer() {}

    /** The bootstrap address (first argument); exits with status 2 when missing. */
    static String bootstrap(String[] args, String usage) {
        if (args.length < 1 || args[0].isBlank()) {
            System.err.println("usage: " + usage);
            System.exit(2);
        }
        return args[0];
    }

    /** The per-operation timeout: a third of the hard deadline. */
    static Duration opTimeout() {
        return Duration.ofMillis(deadlineMs() / 3);
    }

    /** The hard deadline in milliseconds. */
    static long deadlineMs() {
        String v = System.getenv("KIPCHECK_CLIENT_DEADLINE_MS");
        if (v == null || v.isBlank()) {
            return DEFAULT_DEADLINE_MS;
        }
        return Long.parseLong(v.trim());
    }

    /**
     * Starts a daemon thread that halts the JVM with status 124 (as timeout(1) does) when the
     * deadline passes, so no program can hang a test or CI.
     */
    static void watchdog(String name) {
        long deadline = deadlineMs();
        Thread t = new Thread(() -> {
            try {
                Thread.sleep(deadline);
            } catch (InterruptedException e) {
                return;
            }
            System.err.println(name + ": deadline of " + deadline + " ms passed");
            System.err.flush();
            Runtime.getRuntime().halt(124);
        }, "kipcheck-watchdog");
        t.setDaemon(true);
        t.start();
    }

    /** Client properties common to every program: bootstrap, client id and short timeouts. */
    static Properties common(String bootstrap, String clientId) {
        Properties p = new Properties();
        int op = (int) opTimeout().toMillis();
        p.put("bootstrap.servers", bootstrap);
        p.put("client.id", clientId);
        p.put("request.timeout.ms", Integer.toString(Math.min(op, 5_000)));
        p.put("default.api.timeout.ms", Integer.toString(op));
        p.put("socket.connection.setup.timeout.ms", "2000");
        p.put("socket.connection.setup.timeout.max.ms", "4000");
        p.put("reconnect.backoff.max.ms", "1000");
        p.put("retry.backoff.max.ms", "1000");
        return p;
    }

    /** Prints the failure on standard error and exits with status 1. */
    static void fail(String name, Throwable e) {
        System.err.println(name + ": FAILED: " + e);
        System.err.flush();
        System.exit(1);
    }
}

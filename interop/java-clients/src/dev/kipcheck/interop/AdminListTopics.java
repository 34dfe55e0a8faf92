package dev.kipcheck.interop;

import java.util.Properties;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTopicsOptions;

/**
 * Apache Kafka Admin client: bootstraps against the given address, lists the topics (a Metadata
 * request after ApiVersions), prints them one per line and exits 0; exits 1 on failure and 124
 * at the deadline.
 */
public final class AdminListTopics {
    private AdminListTopics() {}

    /** Entry point: {@code AdminListTopics BOOTSTRAP}. */
    public static void main(String[] args) {
        String bootstrap = Peer.bootstrap(args, "AdminListTopics BOOTSTRAP");
        Peer.watchdog("AdminListTopics");
        Properties p = Peer.common(bootstrap, "kipcheck-java-admin");
        long ms = Peer.opTimeout().toMillis();
        try (Admin admin = Admin.create(p)) {
            var names = admin.listTopics(new ListTopicsOptions().timeoutMs((int) ms))
                    .names().get(ms, TimeUnit.MILLISECONDS);
            for (String n : new TreeSet<>(names)) {
                System.out.println(n);
            }
            System.out.println("admin: listed " + names.size() + " topics");
        } catch (Exception e) {
            Peer.fail("AdminListTopics", e);
        }
        System.exit(0);
    }
}

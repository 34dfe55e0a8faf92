package dev.kipcheck.policy.harness;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.errors.ClientConfigPolicyException;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.server.authorizer.AuthorizableRequestContext;
import org.apache.kafka.server.policy.clientconfig.ClientConfig;
import org.apache.kafka.server.policy.clientconfig.ClientConfigData;
import org.apache.kafka.server.policy.clientconfig.ClientConfigPolicy;

/**
 * Calls a {@link ClientConfigPolicy} as a KIP-1324 broker would: loads it by class name with its
 * default constructor, passes the broker configs to {@code configure()}, hands each "PushConfig"
 * to {@code process()} with the values parsed by {@code ConfigDef.parseType} and the broker's
 * timestamp, maps an {@link InvalidConfigurationException} to a rejection, and calls {@code close()}.
 * Driven over stdin for kipcheck's test (harness/tests/peers/policy_bridge_jvm.rs):
 *
 * <pre>
 * java -cp ... dev.kipcheck.policy.harness.BrokerHarness CLASS HOST:PORT
 *   prints "configured", then per stdin line:
 *   process            -> process() with the fixed entries below, timestamp = the broker's clock
 *   process-at MS      -> the same with timestamp MS (a broker with a wrong clock)
 *   close              -> close()
 *   answering "accepted", "rejected MESSAGE", "failed CLASS: MESSAGE" or "closed".
 * </pre>
 */
public final class BrokerHarness {
    /** The entries every push carries: key, value as on the wire, ConfigDef.Type, IsDefault. */
    static final Object[][] ENTRIES = {
        {"enable.auto.commit", "false", ConfigDef.Type.BOOLEAN, false},
        {"client.id", "app-1", ConfigDef.Type.STRING, false},
        {"request.timeout.ms", "30000", ConfigDef.Type.INT, true},
        {"custom.short", "7", ConfigDef.Type.SHORT, false},
        {"metadata.max.age.ms", "300000", ConfigDef.Type.LONG, true},
        {"retry.backoff.jitter", "0.2", ConfigDef.Type.DOUBLE, true},
        {"partition.assignment.strategy", "range,cooperative-sticky", ConfigDef.Type.LIST, false},
        {"custom.class", "java.lang.String", ConfigDef.Type.CLASS, false},
        {"custom.password", "secret", ConfigDef.Type.PASSWORD, false},
    };

    private BrokerHarness() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: BrokerHarness POLICY_CLASS HOST:PORT");
            System.exit(2);
        }
        ClientConfigPolicy policy = Utils.newInstance(args[0], ClientConfigPolicy.class);
        policy.configure(Map.of(
            "client.config.policy.class.name", args[0],
            "kipcheck.policy.address", args[1],
            "node.id", "1"));
        System.out.println("configured");
        System.out.flush();
        BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        int correlationId = 0;
        String line;
        while ((line = stdin.readLine()) != null) {
            String[] words = line.trim().split(" ");
            switch (words[0]) {
                case "process", "process-at" -> {
                    long timestamp = words[0].equals("process")
                        ? System.currentTimeMillis() : Long.parseLong(words[1]);
                    System.out.println(push(policy, ++correlationId, timestamp));
                }
                case "close" -> {
                    policy.close();
                    System.out.println("closed");
                }
                default -> System.out.println("failed unknown command " + line);
            }
            System.out.flush();
        }
    }

    /** One PushConfig as the broker handles it, after its size check. */
    static String push(ClientConfigPolicy policy, int correlationId, long timestamp) {
        List<ClientConfig> configs = new ArrayList<>();
        for (Object[] e : ENTRIES) {
            ConfigDef.Type type = (ConfigDef.Type) e[2];
            Object value = ConfigDef.parseType((String) e[0], e[1], type);
            configs.add(new ClientConfig((String) e[0], value, type, (Boolean) e[3]));
        }
        try {
            policy.process(context(correlationId), new ClientConfigData(configs, timestamp));
            return "accepted";
        } catch (ClientConfigPolicyException e) {
            // The KIP's rejection type: INVALID_CONFIG (what a prototype-like broker maps).
            return "rejected " + e.getMessage();
        } catch (InvalidConfigurationException e) {
            // Kafka's existing INVALID_CONFIG exception: accepted too, but named.
            return "rejected-as " + e.getClass().getSimpleName() + " " + e.getMessage();
        } catch (RuntimeException e) {
            return "failed " + e.getClass().getName() + ": " + e.getMessage();
        }
    }

    static AuthorizableRequestContext context(int correlationId) {
        return new AuthorizableRequestContext() {
            @Override public String listenerName() { return "PLAINTEXT"; }
            @Override public SecurityProtocol securityProtocol() { return SecurityProtocol.PLAINTEXT; }
            @Override public KafkaPrincipal principal() { return KafkaPrincipal.ANONYMOUS; }
            @Override public InetAddress clientAddress() { return InetAddress.getLoopbackAddress(); }
            @Override public int requestType() { return 95; }
            @Override public int requestVersion() { return 0; }
            @Override public String clientId() { return "kipcheck-harness"; }
            @Override public int correlationId() { return correlationId; }
        };
    }
}

package dev.kipcheck.policy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;
import org.apache.kafka.common.errors.ClientConfigPolicyException;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.server.authorizer.AuthorizableRequestContext;
import org.apache.kafka.server.policy.clientconfig.ClientConfig;
import org.apache.kafka.server.policy.clientconfig.ClientConfigData;
import org.apache.kafka.server.policy.clientconfig.ClientConfigPolicy;

/**
 * A KIP-1324 {@link ClientConfigPolicy} whose verdicts come from kipcheck: every
 * {@link #process} call is sent to kipcheck's policy host (one JSON line, docs/policy-bridge.md)
 * with everything the call received (the typed values by their Java class, the ConfigDef types,
 * isDefault, the broker's timestamp and the request context), and answered as the host says:
 * return normally (accept), or throw {@link ClientConfigPolicyException} with the host's message:
 * the type KIP-1324's newest text names in {@code process}'s throws clause. It extends
 * {@link InvalidConfigurationException} (the KIP's older test plan says "InvalidConfigException";
 * kafka-clients has no class of that name: the exception Kafka's {@code Errors} maps to
 * INVALID_CONFIG (40) is this one), so a broker mapping either type answers INVALID_CONFIG.
 *
 * <p>Broker configs it reads ({@code configure}, and {@code reconfigure} at run time):
 * <ul>
 *   <li>{@value #ADDRESS_CONFIG} (required): {@code HOST:PORT} of {@code kipcheck run
 *       --policy-host HOST:PORT}.</li>
 *   <li>{@value #TIMEOUT_CONFIG} (default {@value #DEFAULT_TIMEOUT_MS}): bound in ms on
 *       connecting to the host and on its answer.</li>
 * </ul>
 * The host need not be up when the broker starts: the bridge connects on the first call and
 * again after any failure. A call it cannot get an answer for is rejected with a message
 * that starts with {@value #FAILURE_PREFIX}, so the failure is visible in the PushConfig
 * response and in kipcheck's report.
 */
public class KipcheckClientConfigPolicy implements ClientConfigPolicy {
    /** The broker config naming the policy host. */
    public static final String ADDRESS_CONFIG = "kipcheck.policy.address";
    /** The broker config bounding connect and answer time, in ms. */
    public static final String TIMEOUT_CONFIG = "kipcheck.policy.timeout.ms";
    /** Default of {@link #TIMEOUT_CONFIG}. */
    public static final int DEFAULT_TIMEOUT_MS = 5000;
    /** The protocol version spoken. */
    public static final int PROTOCOL = 1;
    /** How a failure to reach the host starts its rejection message. */
    public static final String FAILURE_PREFIX = "kipcheck policy bridge: ";
    private static final String NAME = "kipcheck-policy-bridge 0.1.0";
    /** The longest answer line read from the host. */
    private static final int MAX_ANSWER_CHARS = 1 << 20;

    private String host;
    private int port;
    private int timeoutMs = DEFAULT_TIMEOUT_MS;
    private Socket socket;
    private BufferedReader in;
    private OutputStream out;
    private long nextId = 1;

    @Override
    public synchronized void configure(Map<String, ?> configs) {
        apply(configs);
        try {
            connect();
        } catch (IOException e) {
            disconnect(); // the host may start later: the first call connects
        }
    }

    @Override
    public Set<String> reconfigurableConfigs() {
        return Set.of(ADDRESS_CONFIG, TIMEOUT_CONFIG);
    }

    @Override
    public void validateReconfiguration(Map<String, ?> configs) throws ConfigException {
        parseAddress(configs.get(ADDRESS_CONFIG));
        parseTimeout(configs.get(TIMEOUT_CONFIG));
    }

    @Override
    public synchronized void reconfigure(Map<String, ?> configs) {
        apply(configs);
        disconnect();
    }

    @Override
    public synchronized void process(AuthorizableRequestContext context, ClientConfigData data) {
        long clock = System.currentTimeMillis();
        long id = nextId++;
        String line = callLine(id, clock, context, data);
        Map<?, ?> answer;
        try {
            if (socket == null) connect();
            answer = exchange(line);
        } catch (IOException | IllegalArgumentException e) {
            disconnect();
            throw new InvalidConfigurationException(FAILURE_PREFIX + "no answer from the policy host "
                + host + ":" + port + " (" + e.getMessage() + ")");
        }
        Object error = answer.get("error");
        if (error != null) {
            disconnect();
            throw new InvalidConfigurationException(FAILURE_PREFIX + "the policy host refused the call: " + error);
        }
        if (!Long.valueOf(id).equals(answer.get("id"))) {
            disconnect();
            throw new InvalidConfigurationException(FAILURE_PREFIX + "answer for call " + answer.get("id")
                + ", expected " + id);
        }
        Object verdict = answer.get("verdict");
        if ("accept".equals(verdict)) return;
        if ("reject".equals(verdict) && answer.get("message") instanceof String message) {
            throw new ClientConfigPolicyException(message);
        }
        if ("fail".equals(verdict) && answer.get("message") instanceof String message) {
            // A policy with a bug: an exception that is not the KIP's rejection.
            throw new IllegalStateException(message);
        }
        disconnect();
        throw new InvalidConfigurationException(FAILURE_PREFIX + "unknown verdict " + verdict);
    }

    @Override
    public synchronized void close() {
        disconnect();
    }

    private void apply(Map<String, ?> configs) {
        InetSocketAddress a = parseAddress(configs.get(ADDRESS_CONFIG));
        host = a.getHostString();
        port = a.getPort();
        timeoutMs = parseTimeout(configs.get(TIMEOUT_CONFIG));
    }

    private static InetSocketAddress parseAddress(Object v) {
        if (v == null) throw new ConfigException(ADDRESS_CONFIG + " is not set (HOST:PORT of kipcheck's --policy-host)");
        String s = v.toString().trim();
        int colon = s.lastIndexOf(':');
        try {
            if (colon <= 0) throw new NumberFormatException();
            int port = Integer.parseInt(s.substring(colon + 1));
            if (port < 1 || port > 65535) throw new NumberFormatException();
            String h = s.substring(0, colon);
            if (h.startsWith("[") && h.endsWith("]")) h = h.substring(1, h.length() - 1);
            return InetSocketAddress.createUnresolved(h, port);
        } catch (NumberFormatException e) {
            throw new ConfigException(ADDRESS_CONFIG, v, "expected HOST:PORT");
        }
    }

    private static int parseTimeout(Object v) {
        if (v == null) return DEFAULT_TIMEOUT_MS;
        try {
            int t = Integer.parseInt(v.toString().trim());
            if (t <= 0) throw new NumberFormatException();
            return t;
        } catch (NumberFormatException e) {
            throw new ConfigException(TIMEOUT_CONFIG, v, "expected a positive number of ms");
        }
    }

    private void connect() throws IOException {
        disconnect();
        Socket s = new Socket();
        try {
            s.connect(new InetSocketAddress(host, port), timeoutMs);
            s.setSoTimeout(timeoutMs);
            s.setTcpNoDelay(true);
            socket = s;
            in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
            out = s.getOutputStream();
            Map<?, ?> hello = exchange("{\"call\":\"hello\",\"protocol\":" + PROTOCOL
                + ",\"bridge\":" + Json.quote(NAME) + "}");
            if (!Long.valueOf(PROTOCOL).equals(hello.get("protocol"))) {
                throw new IOException("the host's hello was " + hello);
            }
        } catch (IOException | RuntimeException e) {
            disconnect();
            s.close();
            throw e instanceof IOException io ? io : new IOException(e.getMessage(), e);
        }
    }

    private void disconnect() {
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
        socket = null;
        in = null;
        out = null;
    }

    private Map<?, ?> exchange(String line) throws IOException {
        out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
        StringBuilder b = new StringBuilder();
        int c;
        while ((c = in.read()) != '\n') {
            if (c < 0) throw new IOException("the host closed the connection");
            if (b.length() >= MAX_ANSWER_CHARS) throw new IOException("answer line too long");
            b.append((char) c);
        }
        if (Json.parse(b.toString()) instanceof Map<?, ?> m) return m;
        throw new IOException("answer is not a JSON object: " + b);
    }

    /** The {@code process} line: everything the call received. */
    static String callLine(long id, long clock, AuthorizableRequestContext ctx, ClientConfigData data) {
        StringBuilder b = new StringBuilder(256);
        b.append("{\"call\":\"process\",\"id\":").append(id);
        b.append(",\"timestamp\":").append(data.timestamp());
        b.append(",\"clock_ms\":").append(clock);
        b.append(",\"context\":").append(context(ctx));
        b.append(",\"configs\":[");
        List<ClientConfig> configs = data.configs() == null ? List.of() : data.configs();
        for (int i = 0; i < configs.size(); i++) {
            ClientConfig c = configs.get(i);
            if (i > 0) b.append(',');
            b.append("{\"key\":").append(c.key() == null ? "null" : Json.quote(c.key()));
            b.append(",\"value\":").append(value(c.value()));
            b.append(",\"type\":").append(c.type() == null ? "null" : Json.quote(c.type().name()));
            b.append(",\"is_default\":").append(c.isDefault()).append('}');
        }
        return b.append("]}").toString();
    }

    private static String context(AuthorizableRequestContext ctx) {
        if (ctx == null) return "{}";
        String address = ctx.clientAddress() == null ? null : ctx.clientAddress().getHostAddress();
        return "{\"client_id\":" + str(ctx.clientId())
            + ",\"correlation_id\":" + ctx.correlationId()
            + ",\"request_type\":" + ctx.requestType()
            + ",\"request_version\":" + ctx.requestVersion()
            + ",\"listener_name\":" + str(ctx.listenerName())
            + ",\"security_protocol\":" + str(ctx.securityProtocol() == null ? null : ctx.securityProtocol().name())
            + ",\"principal\":" + str(ctx.principal() == null ? null : ctx.principal().toString())
            + ",\"client_address\":" + str(address) + "}";
    }

    private static String str(String s) {
        return s == null ? "null" : Json.quote(s);
    }

    /** A value by its Java class, in kipcheck's typed form ({"int": 5}, {"list": [..]}, ...). */
    static String value(Object v) {
        if (v == null) return "null";
        if (v instanceof Boolean b) return "{\"boolean\":" + b + "}";
        if (v instanceof String s) return "{\"string\":" + Json.quote(s) + "}";
        if (v instanceof Integer n) return "{\"int\":" + n + "}";
        if (v instanceof Short n) return "{\"short\":" + n + "}";
        if (v instanceof Long n) return "{\"long\":" + n + "}";
        if (v instanceof Double d) {
            return "{\"double\":" + (d.isNaN() || d.isInfinite() ? Json.quote(d.toString()) : d.toString()) + "}";
        }
        if (v instanceof List<?> l) {
            StringBuilder b = new StringBuilder("{\"list\":[");
            for (int i = 0; i < l.size(); i++) {
                if (i > 0) b.append(',');
                b.append(l.get(i) == null ? "null" : Json.quote(l.get(i).toString()));
            }
            return b.append("]}").toString();
        }
        if (v instanceof Class<?> c) return "{\"class\":" + Json.quote(c.getName()) + "}";
        if (v instanceof Password p) return "{\"password\":" + Json.quote(p.value()) + "}";
        return "{\"java\":{\"class\":" + Json.quote(v.getClass().getName())
            + ",\"string\":" + Json.quote(String.valueOf(v)) + "}}";
    }
}

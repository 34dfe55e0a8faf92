package dev.kipcheck.codec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.common.metadata.MetadataRecordType;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/**
 * Kafka's own generated codec (kafka-clients and kafka-metadata 4.4.0) behind a JSON-lines
 * protocol on stdin/stdout, so that kipcheck can compare its codec with Kafka's on many inputs
 * in one JVM. One request per line, one answer per line, in order:
 *
 * <pre>
 * {"op":"versions","kind":"request|response|record","apiKey":N}
 *   -> {"ok":true,"lowest":L,"highest":H} | {"ok":false,"error":"..."}
 * {"op":"decode","kind":K,"apiKey":N,"version":V,"hex":"..."}
 *   -> {"ok":true,"json":{...},"hex":"..."} | {"ok":true,"json":{...},"writeError":"..."}
 *      | {"ok":false,"error":"..."}
 * {"op":"encode","kind":K,"apiKey":N,"version":V,"json":{...}}
 *   -> {"ok":true,"hex":"..."} | {"ok":false,"error":"..."}
 * </pre>
 *
 * decode reads the bytes with the generated {@code Data.read(new ByteBufferAccessor(buf), v)},
 * rejects bytes left after the message (as kipcheck does), and answers the message as Kafka's
 * generated {@code *JsonConverter.write} prints it (camelCase names, bytes as base64, tagged
 * fields only when not default, unknown tagged fields not shown) together with the bytes the
 * same Data object writes again (unknown tagged fields included). encode reads Kafka's JSON
 * with {@code *JsonConverter.read} and writes it. Nothing here normalises or interprets:
 * kipcheck does that on its side.
 */
public final class Oracle {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final HexFormat HEX = HexFormat.of();

    private Oracle() {
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        BufferedWriter out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), 1 << 16);
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) {
                continue;
            }
            ObjectNode answer;
            try {
                answer = handle(MAPPER.readTree(line));
            } catch (Throwable t) {
                answer = rejection(t);
            }
            out.write(MAPPER.writeValueAsString(answer));
            out.write('\n');
            // Answer as soon as the input runs dry, so a caller may also go line by line.
            if (!in.ready()) {
                out.flush();
            }
        }
        out.flush();
    }

    private static ObjectNode handle(JsonNode req) throws Exception {
        String op = req.path("op").asText();
        String kind = req.path("kind").asText();
        short apiKey = (short) req.path("apiKey").asInt(-1);
        ApiMessage message = newMessage(kind, apiKey);
        ObjectNode answer = MAPPER.createObjectNode();
        switch (op) {
            case "versions": {
                answer.put("ok", true);
                answer.put("lowest", message.lowestSupportedVersion());
                answer.put("highest", message.highestSupportedVersion());
                return answer;
            }
            case "decode": {
                short version = checkedVersion(message, req);
                ByteBuffer buf = ByteBuffer.wrap(HEX.parseHex(req.path("hex").asText()));
                message.read(new ByteBufferAccessor(buf), version);
                if (buf.hasRemaining()) {
                    return rejection("trailing bytes: " + buf.remaining() + " after the message");
                }
                JsonNode json = (JsonNode) converter(message, "write", message.getClass())
                    .invoke(null, message, version);
                answer.put("ok", true);
                answer.set("json", json);
                try {
                    answer.put("hex", HEX.formatHex(write(message, version)));
                } catch (Throwable t) {
                    // Read, but Kafka cannot write it again: a finding in itself.
                    answer.put("writeError", rejection(t).path("error").asText());
                }
                return answer;
            }
            case "encode": {
                short version = checkedVersion(message, req);
                ApiMessage read = (ApiMessage) converter(message, "read", JsonNode.class)
                    .invoke(null, req.path("json"), version);
                answer.put("ok", true);
                answer.put("hex", HEX.formatHex(write(read, version)));
                return answer;
            }
            default:
                throw new IllegalArgumentException("unknown op " + op);
        }
    }

    /** A fresh generated Data object for the API key (or metadata record type). */
    private static ApiMessage newMessage(String kind, short apiKey) {
        switch (kind) {
            case "request":
                return ApiKeys.forId(apiKey).messageType.newRequest();
            case "response":
                return ApiKeys.forId(apiKey).messageType.newResponse();
            case "record":
                return MetadataRecordType.fromId(apiKey).newMetadataRecord();
            default:
                throw new IllegalArgumentException("unknown kind " + kind);
        }
    }

    private static short checkedVersion(ApiMessage message, JsonNode req) {
        short version = (short) req.path("version").asInt(-1);
        if (version < message.lowestSupportedVersion() || version > message.highestSupportedVersion()) {
            throw new IllegalArgumentException("unsupported version " + version + " of "
                + message.getClass().getSimpleName());
        }
        return version;
    }

    /** {@code XJsonConverter.read(JsonNode, short)} or {@code .write(X, short)} of a Data class. */
    private static Method converter(ApiMessage message, String name, Class<?> first) throws Exception {
        Class<?> conv = Class.forName(message.getClass().getName() + "JsonConverter");
        return conv.getMethod(name, first, short.class);
    }

    private static byte[] write(ApiMessage message, short version) {
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int size = message.size(cache, version);
        ByteBuffer buf = ByteBuffer.allocate(size);
        message.write(new ByteBufferAccessor(buf), cache, version);
        if (buf.hasRemaining()) {
            throw new IllegalStateException("size() said " + size + " but write() left "
                + buf.remaining() + " bytes unwritten");
        }
        return buf.array();
    }

    private static ObjectNode rejection(Throwable t) {
        while (t instanceof InvocationTargetException && t.getCause() != null) {
            t = t.getCause();
        }
        String message = t.getClass().getSimpleName() + ": " + t.getMessage();
        if (t instanceof NullPointerException || t instanceof ClassCastException
                || t instanceof IllegalStateException) {
            // Worth seeing where: these are not ordinary "bad input" rejections.
            StringWriter w = new StringWriter();
            t.printStackTrace(new PrintWriter(w));
            message += "\n" + w.toString().lines().limit(6).reduce("", (a, b) -> a + "\n" + b);
        }
        return rejection(message);
    }

    private static ObjectNode rejection(String message) {
        ObjectNode answer = MAPPER.createObjectNode();
        answer.put("ok", false);
        answer.put("error", message);
        return answer;
    }
}

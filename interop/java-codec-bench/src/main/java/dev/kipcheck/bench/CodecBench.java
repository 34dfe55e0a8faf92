package dev.kipcheck.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.BrokerRegistrationRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Kafka 4.4.0's generated codec on kipcheck's fixture bytes (harness/benches/codec.rs writes
 * them with KIPCHECK_FIXTURES_OUT; the directory is the system property kipcheck.fixtures).
 *
 * <p>decode = bytes to a message object ({@code read(ByteBufferAccessor, version)});
 * encode = message object to a fresh heap buffer the way Kafka serialises a message
 * ({@code size} with an ObjectSerializationCache, allocate, {@code write}). Setup checks that
 * the decoded object writes the very same bytes again, so both codecs work on the same input.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class CodecBench {

    /** The fixture's name: the same as the Rust bench module. */
    @Param({
        "api_versions_response_v4_90_keys",
        "incremental_alter_configs_request_v1_50_configs",
        "broker_registration_request_v4",
        "metadata_response_v12_100_topics_10_partitions",
    })
    public String fixture;

    private byte[] bytes;
    private short version;
    private Supplier<ApiMessage> factory;
    private ApiMessage decoded;

    @Setup(Level.Trial)
    public void setup() {
        Path dir = Path.of(System.getProperty("kipcheck.fixtures", "target/bench-fixtures"));
        try {
            bytes = Files.readAllBytes(dir.resolve(fixture + ".bin"));
            version = Short.parseShort(Files.readString(dir.resolve(fixture + ".version")).trim());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        factory = switch (fixture) {
            case "api_versions_response_v4_90_keys" -> ApiVersionsResponseData::new;
            case "incremental_alter_configs_request_v1_50_configs" -> IncrementalAlterConfigsRequestData::new;
            case "broker_registration_request_v4" -> BrokerRegistrationRequestData::new;
            case "metadata_response_v12_100_topics_10_partitions" -> MetadataResponseData::new;
            default -> throw new IllegalArgumentException("unknown fixture " + fixture);
        };
        decoded = decode();
        ByteBuffer again = encode();
        if (!again.equals(ByteBuffer.wrap(bytes))) {
            throw new IllegalStateException(fixture + ": Kafka writes different bytes than it read");
        }
    }

    @Benchmark
    public ApiMessage decode() {
        ByteBufferAccessor in = new ByteBufferAccessor(ByteBuffer.wrap(bytes));
        ApiMessage m = factory.get();
        m.read(in, version);
        if (in.remaining() != 0) {
            throw new IllegalStateException("trailing bytes");
        }
        return m;
    }

    @Benchmark
    public ByteBuffer encode() {
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int size = decoded.size(cache, version);
        ByteBuffer buf = ByteBuffer.allocate(size);
        decoded.write(new ByteBufferAccessor(buf), cache, version);
        buf.flip();
        return buf;
    }
}

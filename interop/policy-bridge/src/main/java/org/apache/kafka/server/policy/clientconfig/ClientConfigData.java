/* KIP-1324's policy interface, as the KIP's newest text defines it (see ClientConfig.java). */
package org.apache.kafka.server.policy.clientconfig;

import java.util.List;

/**
 * Record containing PushConfig API data.
 * <p/>
 * The client configuration values come directly from the RPC. The broker
 * will supply its current timestamp for the value of the same name.
 */
public record ClientConfigData(List<ClientConfig> configs, long timestamp) {}

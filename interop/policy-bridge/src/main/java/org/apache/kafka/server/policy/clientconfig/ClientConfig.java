/*
 * KIP-1324's policy interface, as the KIP's newest text defines it (no Kafka release has it;
 * docs/spec/kips/kip-1324-config-push.rev-newest.txt, kip-notes §1.6). Shipped so the bridge
 * compiles against exactly that interface; a patched broker provides its own copy, so these
 * classes go in kipcheck-policy-bridge-api.jar, never in the bridge jar itself.
 */
package org.apache.kafka.server.policy.clientconfig;

import org.apache.kafka.common.config.ConfigDef;

/**
 * Record containing an individual Config.
 */
public record ClientConfig(String key, Object value, ConfigDef.Type type, boolean isDefault) {}

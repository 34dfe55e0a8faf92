/* KIP-1324's policy rejection, as the KIP's newest text names it in ClientConfigPolicy.process's
 * throws clause ("throws ClientConfigUnknownProfileException, ClientConfigTooLargeException,
 * ClientConfigPolicyException"). It extends InvalidConfigurationException, the exception Kafka's
 * Errors maps to INVALID_CONFIG (40), so a broker that maps either the KIP's type alone (as the
 * KIP-CFG prototype does: only the policy's own exception becomes INVALID_CONFIG, anything else
 * UNKNOWN_SERVER_ERROR) or Kafka's existing one answers INVALID_CONFIG for a rejection. */
package org.apache.kafka.common.errors;

/** The policy refuses the pushed configuration: the broker answers INVALID_CONFIG. */
public class ClientConfigPolicyException extends InvalidConfigurationException {

    public ClientConfigPolicyException(String message) {
        super(message);
    }
}

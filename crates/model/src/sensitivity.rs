//! The client-side sensitivity filter of KIP-1324 (kip-notes §1.3): the six rules that make a
//! key "sensitive", so that its value is never sent. Classification only; choosing keys and
//! emitting warnings is the client's job.

use serde::{Deserialize, Serialize};

use super::config_def::ConfigType;

/// The rule that makes a key sensitive, in the order the KIP lists them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SensitivityRule {
    /// 1. Starts with `sasl.`, `security.` or `ssl.`.
    SecurityPrefix,
    /// 2. Contains `.sasl.`, `.security.` or `.ssl.`.
    SecurityInfix,
    /// 3. Ends with `.class` or `.classes`.
    ClassSuffix,
    /// 4. Declared `ConfigDef.Type.CLASS` (class or implementation names).
    ClassType,
    /// 5. Declared `ConfigDef.Type.PASSWORD`.
    PasswordType,
    /// 6. Not defined by the client library's own `ConfigDef` (custom configuration).
    Undefined,
}

impl SensitivityRule {
    /// Every rule, in the KIP's order.
    pub const ALL: [SensitivityRule; 6] = [
        SensitivityRule::SecurityPrefix,
        SensitivityRule::SecurityInfix,
        SensitivityRule::ClassSuffix,
        SensitivityRule::ClassType,
        SensitivityRule::PasswordType,
        SensitivityRule::Undefined,
    ];

    /// True if this rule holds for `key`, whose declared type is `defined` (`None` when the
    /// client library does not define the key).
    pub fn matches(self, key: &str, defined: Option<ConfigType>) -> bool {
        const WORDS: [&str; 3] = ["sasl", "security", "ssl"];
        match self {
            SensitivityRule::SecurityPrefix => WORDS
                .iter()
                .any(|w| key.strip_prefix(w).is_some_and(|r| r.starts_with('.'))),
            SensitivityRule::SecurityInfix => WORDS.iter().any(|w| key.contains(&format!(".{w}."))),
            SensitivityRule::ClassSuffix => key.ends_with(".class") || key.ends_with(".classes"),
            SensitivityRule::ClassType => defined == Some(ConfigType::Class),
            SensitivityRule::PasswordType => defined == Some(ConfigType::Password),
            SensitivityRule::Undefined => defined.is_none(),
        }
    }
}

/// The first rule (in the KIP's order) that makes `key` sensitive, or `None` if it may be sent.
/// The client model asks its decisions ([`ClientDecisions::sensitivity`](crate::decisions::ClientDecisions::sensitivity)),
/// whose reference answer this is.
pub fn classify(key: &str, defined: Option<ConfigType>) -> Option<SensitivityRule> {
    SensitivityRule::ALL
        .into_iter()
        .find(|r| r.matches(key, defined))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ConfigType::*;

    #[test]
    fn each_rule_with_exact_examples() {
        assert_eq!(
            classify("sasl.mechanism", Some(String)),
            Some(SensitivityRule::SecurityPrefix)
        );
        assert_eq!(
            classify("security.protocol", Some(String)),
            Some(SensitivityRule::SecurityPrefix)
        );
        assert_eq!(
            classify("ssl.protocol", Some(String)),
            Some(SensitivityRule::SecurityPrefix)
        );
        assert_eq!(
            classify("producer.ssl.truststore.location", Some(String)),
            Some(SensitivityRule::SecurityInfix)
        );
        assert_eq!(
            classify("x.sasl.y", Some(String)),
            Some(SensitivityRule::SecurityInfix)
        );
        assert_eq!(
            classify("x.security.y", Some(String)),
            Some(SensitivityRule::SecurityInfix)
        );
        assert_eq!(
            classify("partitioner.class", Some(Class)),
            Some(SensitivityRule::ClassSuffix)
        );
        assert_eq!(
            classify("interceptor.classes", Some(List)),
            Some(SensitivityRule::ClassSuffix)
        );
        assert_eq!(
            classify("key.serializer", Some(Class)),
            Some(SensitivityRule::ClassType)
        );
        assert_eq!(
            classify("my.secret", Some(Password)),
            Some(SensitivityRule::PasswordType)
        );
        assert_eq!(
            classify("my.app.setting", None),
            Some(SensitivityRule::Undefined)
        );
        assert_eq!(classify("client.id", Some(String)), None);
        assert_eq!(classify("max.poll.records", Some(Int)), None);
    }

    #[test]
    fn near_misses_are_not_sensitive() {
        // Only whole dot-separated words count.
        assert_eq!(classify("sslfoo", Some(String)), None);
        assert_eq!(classify("foo.sslx.bar", Some(String)), None);
        assert_eq!(classify("my.classic", Some(String)), None);
        assert_eq!(classify("group.protocol", Some(String)), None);
    }
}

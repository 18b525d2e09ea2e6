//! Name vocabularies: which identifiers name secrets, and which calls seal, verify or merely
//! encode. Names are split into lowercase words (`apiKey`, `api_key`, `API-KEY` → `api`, `key`).

/// Splits `accessToken`, `access_token`, `ACCESS-TOKEN` into lowercase words.
pub fn words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for ch in name.chars() {
        if !ch.is_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if ch.is_uppercase() && prev_lower && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        prev_lower = ch.is_lowercase() || ch.is_ascii_digit();
        cur.extend(ch.to_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Words that make a name about a quantity or a label, not a secret (`max_tokens`, `token_count`).
const NOT_SECRET: &[&str] = &[
    "max", "min", "count", "limit", "len", "length", "budget", "usage", "used", "type", "kind",
    "expiry", "expires", "exp", "ttl", "url", "uri", "endpoint", "hint", "label", "id", "ids",
    "name", "field", "format", "prefix",
];

/// A name for a credential a client must not read: a password, token, API key or secret.
pub fn is_secret_name(name: &str) -> bool {
    let w = words(name);
    let has = |x: &str| w.iter().any(|v| v == x);
    if w.iter().any(|v| NOT_SECRET.contains(&v.as_str())) {
        return false;
    }
    let joined: String = w.concat();
    has("password")
        || has("passwd")
        || has("passphrase")
        || has("secret")
        || has("credential")
        || has("credentials")
        || has("token")
        || has("bearer")
        || has("apikey")
        || joined.contains("password")
        || (has("key")
            && [
                "api",
                "private",
                "secret",
                "signing",
                "access",
                "encryption",
            ]
            .iter()
            .any(|x| has(x)))
}

/// A form field the spec says must be collected in URL mode: credentials and payment data.
pub fn is_sensitive_form_field(name: &str) -> bool {
    if is_secret_name(name) {
        return true;
    }
    let w = words(name);
    let has = |x: &str| w.iter().any(|v| v == x);
    has("cvv")
        || has("cvc")
        || has("iban")
        || has("ssn")
        || has("pin")
        || (has("card") && !has("id") && !has("name"))
        || has("creditcard")
        || has("otp")
}

/// Calls that plainly serialize or encode: anyone can read and rewrite what they produce.
pub fn is_plain_encoder(path: &[String], method: bool, mac: bool) -> bool {
    let last = path.last().map_or("", String::as_str);
    if mac {
        return matches!(last, "format!" | "json!");
    }
    let head = path.first().map_or("", String::as_str);
    if method {
        return matches!(
            last,
            "encode" | "encode_to_string" | "to_base64" | "to_hex" | "encode_hex"
        );
    }
    match head {
        "serde_json" | "serde_urlencoded" | "serde_qs" | "bincode" | "postcard" | "rmp_serde"
        | "ciborium" | "serde_cbor" | "toml" => {
            last.starts_with("to_") || last == "serialize" || last == "into_writer"
        }
        "base64" | "hex" | "base64_url" | "data_encoding" | "bs58" => last.starts_with("encode"),
        _ => {
            matches!(
                last,
                "to_string" | "to_vec" | "to_string_pretty" | "to_value"
            ) && path.len() == 1
        }
    }
}

/// Calls that plainly decode or parse: no integrity check.
pub fn is_plain_decoder(path: &[String], method: bool) -> bool {
    let last = path.last().map_or("", String::as_str);
    let head = path.first().map_or("", String::as_str);
    if method {
        return matches!(
            last,
            "decode" | "decode_to_vec" | "from_base64" | "from_hex" | "parse"
        );
    }
    match head {
        "serde_json" | "serde_urlencoded" | "serde_qs" | "bincode" | "postcard" | "rmp_serde"
        | "ciborium" | "serde_cbor" | "toml" => last.starts_with("from_") || last == "deserialize",
        "base64" | "hex" | "base64_url" | "data_encoding" | "bs58" => last.starts_with("decode"),
        _ => {
            matches!(
                last,
                "from_str" | "from_slice" | "from_value" | "from_reader"
            ) && path.len() == 1
        }
    }
}

/// Calls that protect integrity: a seal, a signature, a MAC, an AEAD, a JWT.
pub fn is_sealer(path: &[String], recv: Option<&str>) -> bool {
    let last = words(path.last().map_or("", String::as_str));
    let any_seg = |needle: &str| path.iter().any(|s| s.to_ascii_lowercase().contains(needle));
    last.iter().any(|w| {
        w.starts_with("seal")
            || w.starts_with("sign")
            || w.starts_with("encrypt")
            || w.ends_with("mac")
            || w == "aead"
            || w == "finalize"
            || w == "protect"
    }) || any_seg("jwt")
        || any_seg("jsonwebtoken")
        || any_seg("hmac")
        || codec_call(&last, recv, "encode")
}

/// Calls that check integrity before trusting: open, verify, decrypt, a codec's decode.
pub fn is_verifier(path: &[String], recv: Option<&str>) -> bool {
    let last = words(path.last().map_or("", String::as_str));
    let any_seg = |needle: &str| path.iter().any(|s| s.to_ascii_lowercase().contains(needle));
    last.first().is_some_and(|w| w == "open")
        || last.iter().any(|w| {
            w.starts_with("verif")
                || w == "unseal"
                || w.starts_with("decrypt")
                || w.starts_with("validat")
                || w.starts_with("authenticat")
        })
        || any_seg("jwt")
        || any_seg("jsonwebtoken")
        || codec_call(&last, recv, "decode")
}

/// `codec.encode(..)` / `sealer.decode_for(..)`: a state codec's own methods (tower-mcp's HMAC
/// codec calls them encode and decode).
fn codec_call(last: &[String], recv: Option<&str>, verb: &str) -> bool {
    last.first().is_some_and(|w| w == verb)
        && recv.is_some_and(|r| {
            let r = r.to_ascii_lowercase();
            r.contains("codec") || r.contains("sealer") || r.contains("signer")
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_every_case_style() {
        assert_eq!(words("accessToken"), ["access", "token"]);
        assert_eq!(words("API_KEY"), ["api", "key"]);
        assert_eq!(words("card-number"), ["card", "number"]);
    }

    #[test]
    fn secrets_and_quantities() {
        for s in [
            "password",
            "apiKey",
            "api_key",
            "accessToken",
            "client_secret",
            "credentials",
            "db_password",
        ] {
            assert!(is_secret_name(s), "{s}");
        }
        for s in [
            "max_tokens",
            "token_count",
            "key",
            "step",
            "tool",
            "name",
            "token_url",
            "monkey",
        ] {
            assert!(!is_secret_name(s), "{s}");
        }
        assert!(is_sensitive_form_field("card_number"));
        assert!(is_sensitive_form_field("cvv"));
        assert!(!is_sensitive_form_field("cardinality"));
        assert!(!is_sensitive_form_field("email"));
    }
}

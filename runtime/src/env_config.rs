//! The default configuration of a server type (`impl MrtrServer for MyServer {}`): read from
//! the environment once per process and server type.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use crate::config::MrtrConfig;
use crate::keys::{KeyRing, SecretKey};

/// The configuration of the server type named `server_name`, made by
/// [`MrtrConfig::from_env`] on first use. A malformed `MRTR_KEYS` does not stop the server:
/// every seal then fails with the reason (an `Internal` error naming the variable), and the
/// reason is printed once.
pub fn for_server(server_name: &'static str) -> &'static MrtrConfig {
    static CONFIGS: OnceLock<Mutex<HashMap<&'static str, &'static MrtrConfig>>> = OnceLock::new();
    let configs = CONFIGS.get_or_init(Mutex::default);
    let mut configs = configs
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    configs.entry(server_name).or_insert_with(|| {
        let config = MrtrConfig::from_env(server_name).unwrap_or_else(|error| {
            eprintln!("ERROR mrtr: {error}; requests that need a requestState will fail");
            // Sealing refuses with the reason, so this key is never used.
            let mut config = match SecretKey::random("unusable") {
                Ok(key) => MrtrConfig::new(server_name, KeyRing::single(key)),
                Err(_) => MrtrConfig::ephemeral(server_name),
            };
            config.unusable = Some(Arc::from(error.to_string()));
            config
        });
        // One per server type for the whole process: leaking it gives handlers a plain
        // reference without a lock.
        Box::leak(Box::new(config))
    })
}

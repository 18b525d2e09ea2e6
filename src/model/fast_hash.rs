//! The maps of the scope model, keyed by names from the file being linted: a fast non-keyed hash
//! instead of SipHash, which was 3% of the all-parse bench. The keys come from source files and
//! the maps live for one file, so hash flooding could only slow down the lint of a hostile file,
//! which the depth and size guards already bound.

pub type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;
pub type HashSet<K> = std::collections::HashSet<K, foldhash::fast::RandomState>;

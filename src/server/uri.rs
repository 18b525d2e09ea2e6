//! `file:` URIs and paths. Only what editors send for local files: an absolute path, each byte
//! outside the unreserved set percent-encoded.

use std::path::{Path, PathBuf};

use lsp_types::Uri;

/// The local path a `file:` URI names; `None` for other schemes (`untitled:`, remote files).
pub fn to_path(uri: &Uri) -> Option<PathBuf> {
    let s = uri.as_str();
    let rest = s.strip_prefix("file://")?;
    // `file://host/path`: only the local host (empty or `localhost`) is a local path.
    let path = match rest.find('/') {
        Some(0) => rest,
        Some(i) if &rest[..i] == "localhost" => &rest[i..],
        _ => return None,
    };
    let path = path.split(['?', '#']).next().unwrap_or(path);
    let bytes = percent_decode(path)?;
    let text = String::from_utf8(bytes).ok()?;
    Some(PathBuf::from(text))
}

/// The `file:` URI of an absolute path.
pub fn from_path(path: &Path) -> Option<Uri> {
    let text = path.to_str()?;
    if !text.starts_with('/') {
        return None;
    }
    let mut out = String::from("file://");
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out.parse().ok()
}

fn percent_decode(s: &str) -> Option<Vec<u8>> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_with_spaces_and_unicode() {
        let p = Path::new("/tmp/my dir/é#1.rs");
        let uri = from_path(p).unwrap();
        assert_eq!(uri.as_str(), "file:///tmp/my%20dir/%C3%A9%231.rs");
        assert_eq!(to_path(&uri).unwrap(), p);
        let host: Uri = "file://localhost/a/b.rs".parse().unwrap();
        assert_eq!(to_path(&host).unwrap(), Path::new("/a/b.rs"));
        let untitled: Uri = "untitled:Untitled-1".parse().unwrap();
        assert!(to_path(&untitled).is_none());
    }
}

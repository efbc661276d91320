//! Fetching files of a published tree over HTTP(S) (ureq, rustls with the webpki
//! roots): the URL of a tree file under the base URL, whole small documents, and
//! files streamed to disk while their SHA-256 is computed. Transient failures
//! (connection errors, timeouts, 5xx, 429) are retried a few times with a growing
//! pause; a missing file (404, 410) or bytes that differ from the manifest mean the
//! published tree changed under the mirror.

use std::fs;
use std::io::{self, Read, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use percent_encoding::{utf8_percent_encode, AsciiSet, CONTROLS};
use sha2::{Digest, Sha256};

/// Bytes escaped in a path segment of a file URL: `%` (canonical names hold
/// percent-escapes, so `%` is sent as `%25`), and what a URL path cannot hold as it is.
const SEGMENT: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'`')
    .add(b'{')
    .add(b'}')
    .add(b'\\')
    .add(b'^')
    .add(b'|')
    .add(b'[')
    .add(b']');

/// Attempts per request before a transient failure is reported.
const ATTEMPTS: u32 = 4;

/// Why a fetch failed.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// The file is not (or no longer) published: the tree changed under the mirror.
    #[error("{0}: not found on the server (404)")]
    Missing(String),
    /// The bytes differ from what the manifest says: the tree changed, or the server
    /// is not serving it faithfully.
    #[error("{url}: {problem}")]
    Mismatch { url: String, problem: String },
    #[error("{url}: {source}")]
    Http { url: String, source: ureq::Error },
    #[error("{url}: {source}")]
    Io { url: String, source: io::Error },
    #[error("writing {path}: {source}")]
    Write {
        path: std::path::PathBuf,
        source: io::Error,
    },
}

impl FetchError {
    /// Whether the failure says the published tree changed while mirroring.
    pub fn tree_moved(&self) -> bool {
        matches!(self, FetchError::Missing(_) | FetchError::Mismatch { .. })
    }

    fn transient(&self) -> bool {
        match self {
            FetchError::Http { source, .. } => match source {
                ureq::Error::StatusCode(code) => *code >= 500 || *code == 429 || *code == 408,
                ureq::Error::BadUri(_) | ureq::Error::InvalidProxyUrl => false,
                _ => true,
            },
            FetchError::Io { .. } => true,
            _ => false,
        }
    }
}

/// An HTTP client for one published tree, counting requests and the body bytes
/// received (compressed as they came).
pub struct Client {
    agent: ureq::Agent,
    base: String,
    pub requests: AtomicU64,
    pub bytes: AtomicU64,
}

impl Client {
    /// A client for the tree at `base` (`http://` or `https://`; a trailing `/` is
    /// added), with connections for `parallel` fetches.
    pub fn new(base: &str, parallel: usize) -> Result<Client, String> {
        let lower = base.to_ascii_lowercase();
        if !(lower.starts_with("http://") || lower.starts_with("https://")) {
            return Err(format!("{base}: expected an http:// or https:// URL"));
        }
        if base.contains(['?', '#']) {
            return Err(format!(
                "{base}: the URL of a site folder has no query or fragment"
            ));
        }
        let base = if base.ends_with('/') {
            base.to_string()
        } else {
            format!("{base}/")
        };
        let config = ureq::Agent::config_builder()
            .timeout_connect(Some(Duration::from_secs(30)))
            .timeout_recv_response(Some(Duration::from_secs(60)))
            .timeout_per_read(Some(Duration::from_secs(60)))
            .max_idle_connections_per_host(parallel.max(1) + 2)
            .user_agent(format!("roost/{} mirror", env!("CARGO_PKG_VERSION")))
            .build();
        Ok(Client {
            agent: config.into(),
            base,
            requests: AtomicU64::new(0),
            bytes: AtomicU64::new(0),
        })
    }

    /// The URL of the tree file `path` (relative to the site root).
    pub fn url(&self, path: &str) -> String {
        let mut url = self.base.clone();
        for (i, segment) in path.split('/').enumerate() {
            if i > 0 {
                url.push('/');
            }
            url.extend(utf8_percent_encode(segment, SEGMENT));
        }
        url
    }

    /// Runs `once` up to [`ATTEMPTS`] times while it fails transiently.
    fn retrying<T>(
        &self,
        mut once: impl FnMut() -> Result<T, FetchError>,
    ) -> Result<T, FetchError> {
        let mut attempt = 1;
        loop {
            match once() {
                Err(e) if e.transient() && attempt < ATTEMPTS => {
                    std::thread::sleep(Duration::from_millis(250 * 2u64.pow(attempt)));
                    attempt += 1;
                }
                other => return other,
            }
        }
    }

    /// A GET of the tree file `path`: gzip asked for (and undone here) unless the
    /// file is itself a compressed sibling, whose bytes are wanted as they are stored
    /// (a bucket may label them with their `Content-Encoding`).
    fn get(&self, path: &str, url: &str, fresh: bool) -> Result<Body, FetchError> {
        self.requests.fetch_add(1, Ordering::Relaxed);
        let stored_compressed = path.ends_with(".gz") || path.ends_with(".br");
        let mut request = self.agent.get(url).header(
            "Accept-Encoding",
            if stored_compressed {
                "identity"
            } else {
                "gzip"
            },
        );
        if fresh {
            // The root changes with every generation: ask caches on the way to
            // revalidate it.
            request = request.header("Cache-Control", "no-cache");
        }
        let response = request.call().map_err(|source| match source {
            ureq::Error::StatusCode(404 | 410) => FetchError::Missing(url.to_string()),
            source => FetchError::Http {
                url: url.to_string(),
                source,
            },
        })?;
        let encoding = response
            .headers()
            .get("content-encoding")
            .and_then(|v| v.to_str().ok())
            .map(|v| v.trim().to_ascii_lowercase())
            .unwrap_or_default();
        let gunzip = match encoding.as_str() {
            "" | "identity" => false,
            "gzip" | "x-gzip" if !stored_compressed => true,
            "gzip" | "x-gzip" if path.ends_with(".gz") => false,
            "br" if path.ends_with(".br") => false,
            other => {
                return Err(FetchError::Mismatch {
                    url: url.to_string(),
                    problem: format!("served with Content-Encoding '{other}'"),
                })
            }
        };
        Ok(Body {
            inner: response.into_body(),
            gunzip,
        })
    }

    /// Reads a body to its end through `sink`, counting the bytes on the wire; at
    /// most `limit` bytes once decoded (more is a mismatch).
    fn read(
        &self,
        url: &str,
        body: Body,
        limit: u64,
        mut sink: impl FnMut(&[u8]) -> Result<(), FetchError>,
    ) -> Result<u64, FetchError> {
        let counted = Counted {
            inner: body.inner.into_with_config().limit(u64::MAX).reader(),
            client: self,
        };
        let mut reader: Box<dyn Read + '_> = if body.gunzip {
            Box::new(flate2::read::GzDecoder::new(counted))
        } else {
            Box::new(counted)
        };
        let mut buf = vec![0u8; 64 * 1024];
        let mut total = 0u64;
        loop {
            let n = reader.read(&mut buf).map_err(|source| FetchError::Io {
                url: url.to_string(),
                source,
            })?;
            if n == 0 {
                return Ok(total);
            }
            total += n as u64;
            if total > limit {
                return Err(FetchError::Mismatch {
                    url: url.to_string(),
                    problem: format!("larger than {limit} bytes"),
                });
            }
            sink(&buf[..n])?;
        }
    }

    /// The whole body of the tree file `path`, at most `limit` bytes; `fresh` asks
    /// caches to revalidate.
    pub fn bytes(&self, path: &str, limit: u64, fresh: bool) -> Result<Vec<u8>, FetchError> {
        let url = self.url(path);
        self.retrying(|| {
            let body = self.get(path, &url, fresh)?;
            let mut out = Vec::new();
            self.read(&url, body, limit, |chunk| {
                out.extend_from_slice(chunk);
                Ok(())
            })?;
            Ok(out)
        })
    }

    /// Streams the tree file `path` to `target` (through `target` + `.part`, renamed
    /// once its size and SHA-256 are the expected ones).
    pub fn file(
        &self,
        path: &str,
        size: u64,
        sha256: &str,
        target: &Path,
    ) -> Result<(), FetchError> {
        let url = self.url(path);
        let part = crate::atomic::with_suffix(target, ".part");
        let write_err = |source| FetchError::Write {
            path: part.clone(),
            source,
        };
        self.retrying(|| {
            let body = self.get(path, &url, false)?;
            let fill = |part: &Path| {
                let mut out = io::BufWriter::new(fs::File::create(part).map_err(write_err)?);
                let mut hasher = Sha256::new();
                // Room to notice a larger file instead of stopping at the expected size.
                let limit = size.saturating_add(1);
                let total = self.read(&url, body, limit, |chunk| {
                    hasher.update(chunk);
                    out.write_all(chunk).map_err(write_err)
                })?;
                out.flush().map_err(write_err)?;
                let got = hex::encode(hasher.finalize());
                if total != size || got != sha256 {
                    return Err(FetchError::Mismatch {
                        url: url.clone(),
                        problem: format!(
                            "{total} bytes with SHA-256 {got}, the manifest says {size} bytes with {sha256}"
                        ),
                    });
                }
                crate::crash::point("mirror::fetch_file");
                Ok(())
            };
            crate::atomic::replace_file(&part, target, fill, |source| FetchError::Write {
                path: target.to_path_buf(),
                source,
            })
        })
    }
}

/// A response body and whether it is to be gunzipped.
struct Body {
    inner: ureq::Body,
    gunzip: bool,
}

/// A reader that adds the bytes it reads to the client's count.
struct Counted<'a, R> {
    inner: R,
    client: &'a Client,
}

impl<R: Read> Read for Counted<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.client.bytes.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_urls_keep_canonical_names_and_escape_percent() {
        let client = Client::new("http://127.0.0.1:9/mirror", 1).unwrap();
        assert_eq!(
            client.url("api/v0/issues/index@page=2&state=open.json"),
            "http://127.0.0.1:9/mirror/api/v0/issues/index@page=2&state=open.json"
        );
        assert_eq!(
            client.url("api/v0/members/index@location=s%C3%A3o%20paulo.json"),
            "http://127.0.0.1:9/mirror/api/v0/members/index@location=s%25C3%25A3o%2520paulo.json"
        );
        assert!(Client::new("ftp://example.org/", 1).is_err());
        assert!(Client::new("https://example.org/?x=1", 1).is_err());
    }
}

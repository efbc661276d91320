//! Where the shim's log lines go: stderr, written by a thread of its own in batches.
//!
//! A request's line is formatted on the worker that answered it and appended to a
//! shared buffer under a short lock; the worker never waits for stderr. The writer
//! thread, woken by the first line of a batch, writes everything buffered in one go
//! once the batch is worth a write ([`BATCH`]) or its first line has waited
//! [`LATENCY`]. So a busy shim makes
//! one `write` per batch rather than one per request, and wakes no thread per line
//! (tracing-appender's writer does both for each line, which showed as a tenth of
//! the shim's CPU when it answers files).
//!
//! When stderr cannot keep up and [`CAPACITY`] bytes wait, further lines are dropped
//! and counted; the count is written as a line of its own once there is room. The
//! [`Guard`] writes what is left when dropped (waiting at most two seconds for
//! stderr). An idle shim's writer sleeps until the next line.

use std::io::Write;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use tracing_subscriber::fmt::MakeWriter;

/// Buffered bytes that wake the writer at once.
pub const BATCH: usize = 64 << 10;
/// The longest a line waits before it is written.
pub const LATENCY: Duration = Duration::from_millis(50);
/// Buffered bytes past which lines are dropped.
pub const CAPACITY: usize = 32 << 20;

#[derive(Default)]
struct Pending {
    bytes: Vec<u8>,
    dropped: u64,
    /// The guard was dropped: write what is left and stop.
    closed: bool,
    /// The writer thread has written everything and stopped.
    finished: bool,
}

#[derive(Default)]
struct Shared {
    pending: Mutex<Pending>,
    /// Wakes the writer thread: a first line, a full batch, or the guard dropped.
    wake: Condvar,
    /// Wakes the guard: the writer thread has finished.
    finished: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Pending> {
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Appends one line (or drops it when full).
    fn push(&self, line: &[u8]) {
        let mut pending = self.lock();
        if pending.bytes.len() + line.len() > CAPACITY {
            pending.dropped += 1;
            return;
        }
        let before = pending.bytes.len();
        pending.bytes.extend_from_slice(line);
        if before == 0 || (before < BATCH && pending.bytes.len() >= BATCH) {
            self.wake.notify_one();
        }
    }
}

/// The `MakeWriter` given to the subscriber; cloning shares the buffer.
#[derive(Clone)]
pub struct BatchWriter(Arc<Shared>);

impl BatchWriter {
    /// Appends one whole line (or more), formatted elsewhere (the access line,
    /// [`super::logline::Access`]), as a line written through the subscriber is.
    pub fn push(&self, line: &[u8]) {
        if !line.is_empty() {
            self.0.push(line);
        }
    }
}

/// The writer of the process's JSON log, once [`super::init_logging_as`] has set it;
/// access lines are written straight into it rather than through tracing's event
/// machinery (bench/history/2026-11.md, "A tree file: 45,400 → 34,200 instructions a
/// request").
static DIRECT: std::sync::OnceLock<BatchWriter> = std::sync::OnceLock::new();

/// Makes `writer` the writer of lines formatted outside the subscriber; the first
/// call in a process wins.
pub fn set_direct(writer: BatchWriter) {
    let _ = DIRECT.set(writer);
}

/// The writer of lines formatted outside the subscriber, when the log is JSON lines
/// on this writer.
pub fn direct() -> Option<&'static BatchWriter> {
    DIRECT.get()
}

/// Writes what is left and stops the writer thread when dropped.
pub struct Guard {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

/// A writer into `out` and its guard.
pub fn batched<W: Write + Send + 'static>(out: W) -> (BatchWriter, Guard) {
    let shared = Arc::new(Shared::default());
    let thread = {
        let shared = Arc::clone(&shared);
        std::thread::Builder::new()
            .name("roost-log".into())
            .spawn(move || write_batches(&shared, out))
            .ok()
    };
    (BatchWriter(Arc::clone(&shared)), Guard { shared, thread })
}

/// The writer thread: asleep while nothing waits; once a line comes, it lets a batch
/// gather for up to [`LATENCY`] (less when the batch fills), then writes it whole.
fn write_batches<W: Write>(shared: &Shared, mut out: W) {
    let mut batch = Vec::new();
    loop {
        let (dropped, closed) = {
            let mut pending = shared.lock();
            while pending.bytes.is_empty() && pending.dropped == 0 && !pending.closed {
                pending = shared
                    .wake
                    .wait(pending)
                    .unwrap_or_else(PoisonError::into_inner);
            }
            if pending.bytes.len() < BATCH && !pending.closed {
                pending = shared
                    .wake
                    .wait_timeout(pending, LATENCY)
                    .unwrap_or_else(PoisonError::into_inner)
                    .0;
            }
            std::mem::swap(&mut batch, &mut pending.bytes);
            (std::mem::take(&mut pending.dropped), pending.closed)
        };
        if dropped > 0 {
            let _ = writeln!(
                batch,
                "{{\"level\":\"WARN\",\"message\":\"{dropped} log line(s) dropped: stderr did not keep up\"}}"
            );
        }
        if !batch.is_empty() {
            // Nowhere to report a failed write of the log itself.
            let _ = out.write_all(&batch);
            let _ = out.flush();
            batch.clear();
        }
        if closed {
            let mut pending = shared.lock();
            if pending.bytes.is_empty() {
                pending.finished = true;
                shared.finished.notify_all();
                return;
            }
        }
    }
}

/// How long dropping the [`Guard`] waits for the last lines to be written; a stderr
/// that takes longer (a full pipe nobody reads) must not keep the process from
/// exiting.
const FINAL_WRITE: Duration = Duration::from_secs(2);

impl Drop for Guard {
    fn drop(&mut self) {
        let mut pending = self.shared.lock();
        pending.closed = true;
        self.shared.wake.notify_one();
        let (pending, _) = self
            .shared
            .finished
            .wait_timeout_while(pending, FINAL_WRITE, |p| !p.finished)
            .unwrap_or_else(PoisonError::into_inner);
        let finished = pending.finished;
        drop(pending);
        if let (true, Some(thread)) = (finished, self.thread.take()) {
            let _ = thread.join();
        }
    }
}

/// One line being formatted; appended to the buffer when dropped.
pub struct Line {
    shared: Arc<Shared>,
    bytes: Vec<u8>,
}

impl Write for Line {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for Line {
    fn drop(&mut self) {
        if !self.bytes.is_empty() {
            self.shared.push(&self.bytes);
        }
    }
}

impl<'a> MakeWriter<'a> for BatchWriter {
    type Writer = Line;

    fn make_writer(&'a self) -> Line {
        Line {
            shared: Arc::clone(&self.0),
            bytes: Vec::with_capacity(256),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `Write` whose bytes the test can read.
    #[derive(Clone, Default)]
    struct Sink(Arc<Mutex<Vec<u8>>>);

    impl Write for Sink {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn line(writer: &BatchWriter, text: &str) {
        let mut line = writer.make_writer();
        line.write_all(text.as_bytes()).unwrap();
    }

    #[test]
    fn lines_are_written_whole_in_order_soon_and_all_by_the_guard() {
        let sink = Sink::default();
        let (writer, guard) = batched(sink.clone());
        line(&writer, "one\n");
        // Written within the latency bound, though far below a batch.
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while sink.0.lock().unwrap().is_empty() {
            assert!(std::time::Instant::now() < deadline, "a line waited 5 s");
            std::thread::sleep(Duration::from_millis(5));
        }
        let threads: Vec<_> = (0..4)
            .map(|t| {
                let writer = writer.clone();
                std::thread::spawn(move || {
                    for i in 0..2000 {
                        line(&writer, &format!("{t} {i:04} {}\n", "x".repeat(40)));
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        drop(guard);
        let out = String::from_utf8(sink.0.lock().unwrap().clone()).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 1 + 4 * 2000);
        assert_eq!(lines[0], "one");
        for t in 0..4 {
            let mine: Vec<&str> = lines
                .iter()
                .copied()
                .filter(|l| l.starts_with(&format!("{t} ")))
                .collect();
            assert_eq!(mine.len(), 2000);
            assert!(
                mine.windows(2).all(|w| w[0] < w[1]),
                "thread {t}'s lines out of order"
            );
            assert!(mine.iter().all(|l| l.len() == 2 + 4 + 1 + 40));
        }
    }

    /// A stderr that never returns until told to.
    #[derive(Clone)]
    struct Stuck(Arc<(Mutex<bool>, Condvar)>, Sink);

    impl Write for Stuck {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            let (open, cv) = &*self.0;
            let mut open = open.lock().unwrap();
            while !*open {
                open = cv.wait(open).unwrap();
            }
            self.1.write(buf)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_stuck_stderr_does_not_keep_the_guard_forever() {
        let stuck = Stuck(
            Arc::new((Mutex::new(false), Condvar::new())),
            Sink::default(),
        );
        let (writer, guard) = batched(stuck);
        line(&writer, "never written\n");
        let started = std::time::Instant::now();
        drop(guard);
        let waited = started.elapsed();
        assert!(
            waited >= FINAL_WRITE && waited < FINAL_WRITE * 3,
            "{waited:?}"
        );
    }

    #[test]
    fn lines_past_the_capacity_are_dropped_and_counted() {
        let sink = Sink::default();
        let stuck = Stuck(Arc::new((Mutex::new(false), Condvar::new())), sink.clone());
        let (writer, guard) = batched(stuck.clone());
        // The first line is taken by the writer, which then blocks on it.
        line(&writer, "first\n");
        std::thread::sleep(LATENCY * 4);
        let big = "y".repeat(1 << 20);
        for _ in 0..40 {
            line(&writer, &format!("{big}\n"));
        }
        *stuck.0 .0.lock().unwrap() = true;
        stuck.0 .1.notify_all();
        drop(guard);
        let out = String::from_utf8(sink.0.lock().unwrap().clone()).unwrap();
        let kept = out.lines().filter(|l| l.starts_with('y')).count();
        assert!(kept < 40 && kept * (1 << 20) <= CAPACITY, "{kept} kept");
        assert!(
            out.contains(&format!("{} log line(s) dropped", 40 - kept)),
            "{}",
            &out[out.len().saturating_sub(200)..]
        );
    }
}

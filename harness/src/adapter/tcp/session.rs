//! One scenario's connections to a live `tcp://` target ([`TcpSession`]): frames go out and
//! come back byte for byte, each connection read by a task of its own; a controller session
//! notes the brokers its scenario registers (and undoes them when it ends), reads the
//! metadata log and runs the manifest's `failover:` command. It must not judge or alter a
//! frame: frames reach the runner as they came (the registration watch reads only what it
//! must undo).

use std::collections::{btree_map, BTreeMap};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use serde_json::Value;
use tokio::io::AsyncWriteExt;
use tokio::net::tcp::OwnedWriteHalf;
use tokio::net::TcpStream;
use tokio::sync::mpsc;

use super::cleanup::clean_up;
use super::controller::{Registered, RegistrationWatch};
use super::log_watch::LogWatch;
use super::probe::{probe, Probe};
use super::{IO_TIMEOUT, MAX_REAL_ADVANCE_MS};
use crate::adapter::error::{AdapterError, Crash, SetupError, Unsupported};
use crate::adapter::failover::{fail_over, FailoverCommand};
use crate::adapter::policy_host::PolicyScope;
use crate::adapter::target::{ConnOutput, OutRequest, Outbound, PeerAction, Session};
use crate::codec::{limits::DEFAULT_MAX_FRAME_SIZE, ProvisionalNumbers};
use crate::net::FrameStream;

/// One open connection: its write half and the frames its reader task delivers.
pub(super) struct Conn {
    write: OwnedWriteHalf,
    rx: mpsc::UnboundedReceiver<ConnOutput>,
    reader: tokio::task::JoinHandle<()>,
}

impl Drop for Conn {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

/// One scenario's connections to the live target (opened on first use, closed on drop).
pub struct TcpSession {
    pub(super) addr: String,
    pub(super) start: Instant,
    pub(super) conns: BTreeMap<u32, Conn>,
    /// The hosted policy's verdict, clock and calls for this scenario (`--policy-host`).
    pub(super) policy: Option<PolicyScope>,
    pub(super) log: Option<LogWatch>,
    /// Controller role: the brokers this session registers, unregistered when it ends.
    pub(super) registrations: Option<Registrations>,
    /// The manifest's `failover:` command, for a `failover` step.
    pub(super) failover: Option<(FailoverCommand, ProvisionalNumbers)>,
    pub(super) exclusive: Option<tokio::sync::OwnedMutexGuard<()>>,
}

/// A controller session's view of the brokers its scenario registers.
pub(super) struct Registrations {
    pub(super) probe: Probe,
    pub(super) numbers: ProvisionalNumbers,
    pub(super) watch: RegistrationWatch,
    pub(super) registered: Registered,
}

impl Drop for TcpSession {
    /// Unregisters every broker the scenario registered (passed, failed or errored) and sets
    /// metadata.version back if it sent UpdateFeatures, holding the controller until done so
    /// the next session starts clean. On a multi-threaded
    /// runtime (`kipcheck run`) this waits for the unregistration; elsewhere the next
    /// session waits for it (it holds the lock).
    fn drop(&mut self) {
        let Some(mut r) = self.registrations.take() else {
            return;
        };
        // Answers the runner did not read (a step failed first) may still register a broker.
        for (id, c) in &mut self.conns {
            while let Ok(ConnOutput::Frame(f)) = c.rx.try_recv() {
                r.watch.answered(*id, &f, &r.registered);
            }
        }
        if r.registered.lock().map_or(true, |s| s.is_clean()) {
            return;
        }
        let addr = self.addr.clone();
        let guard = self.exclusive.take();
        let job = std::thread::spawn(move || {
            // A failure is retried when the next session opens (and reported there).
            let _ = clean_up(&addr, &r.probe, &r.numbers, &r.registered);
            drop(guard);
        });
        let multi = tokio::runtime::Handle::try_current()
            .is_ok_and(|h| h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread);
        if multi {
            tokio::task::block_in_place(|| {
                let _ = job.join();
            });
        }
    }
}

/// Reads frames as they are (size prefix included) until the peer closes. A size prefix
/// that is negative or over the codec's limit is delivered alone, a frame cut short as far
/// as it came; both then count as a close.
async fn read_frames(
    r: tokio::net::tcp::OwnedReadHalf,
    addr: String,
    tx: mpsc::UnboundedSender<ConnOutput>,
) {
    let mut frames = FrameStream::new(r, addr, DEFAULT_MAX_FRAME_SIZE);
    loop {
        match frames.next(None).await {
            Ok(frame) => {
                let _ = tx.send(ConnOutput::Frame(frame));
            }
            Err(_) => {
                let partial = frames.take_partial();
                if !partial.is_empty() {
                    let _ = tx.send(ConnOutput::Frame(partial));
                }
                let _ = tx.send(ConnOutput::Closed);
                return;
            }
        }
    }
}

impl TcpSession {
    /// After a failover: the connections opened before it may have been closed by it (a
    /// restarted controller drops them), so each is dropped, its unread answers noted first
    /// (a registration they confirm is still unregistered at the end); a later `send` on the
    /// same connection number opens a new connection to the controller.
    fn forget_connections(&mut self) {
        for (id, mut c) in std::mem::take(&mut self.conns) {
            while let Ok(ConnOutput::Frame(f)) = c.rx.try_recv() {
                if let Some(r) = &mut self.registrations {
                    r.watch.answered(id, &f, &r.registered);
                }
            }
        }
    }

    async fn conn(&mut self, id: u32) -> Result<&mut Conn, AdapterError> {
        let vacant = match self.conns.entry(id) {
            btree_map::Entry::Occupied(o) => return Ok(o.into_mut()),
            btree_map::Entry::Vacant(v) => v,
        };
        let addr = &self.addr;
        let stream = tokio::time::timeout(IO_TIMEOUT, TcpStream::connect(addr))
            .await
            .map_err(|_| Crash::ConnectTimedOut { addr: addr.clone() })?
            .map_err(|source| Crash::Unreachable {
                addr: addr.clone(),
                source,
            })?;
        let _ = stream.set_nodelay(true);
        let (r, w) = stream.into_split();
        let (tx, rx) = mpsc::unbounded_channel();
        let reader = tokio::spawn(read_frames(r, addr.clone(), tx));
        Ok(vacant.insert(Conn {
            write: w,
            rx,
            reader,
        }))
    }
}

fn unsupported(step: &str) -> AdapterError {
    Unsupported::NoLiveForm {
        step: step.to_owned(),
        on: "against a live tcp:// target",
    }
    .into()
}

#[async_trait]
impl Session for TcpSession {
    async fn send(&mut self, conn: u32, out: Outbound) -> Result<(), AdapterError> {
        if let Some(r) = &mut self.registrations {
            r.watch.sent(conn, &out, &r.numbers, &r.registered);
        }
        let c = self.conn(conn).await?;
        match tokio::time::timeout(IO_TIMEOUT, c.write.write_all(&out.frame)).await {
            // A write into a connection the peer closed: the reader reports the close.
            Ok(_) => Ok(()),
            Err(_) => Err(Crash::StoppedReading.into()),
        }
    }

    async fn recv(&mut self, conn: u32, wait_ms: u64) -> Result<Option<ConnOutput>, AdapterError> {
        let Some(c) = self.conns.get_mut(&conn) else {
            return Ok(None);
        };
        match tokio::time::timeout(Duration::from_millis(wait_ms), c.rx.recv()).await {
            Ok(Some(out)) => {
                if let (Some(r), ConnOutput::Frame(f)) = (&mut self.registrations, &out) {
                    r.watch.answered(conn, f, &r.registered);
                }
                Ok(Some(out))
            }
            Ok(None) => Ok(Some(ConnOutput::Closed)),
            Err(_) => Ok(None),
        }
    }

    async fn act(&mut self, action: PeerAction) -> Result<(), AdapterError> {
        match (action, &self.failover) {
            (PeerAction::Failover, Some((f, numbers))) => {
                let (addr, numbers) = (self.addr.clone(), *numbers);
                let ready = move || probe(&addr, &numbers).map(drop);
                fail_over(f, &self.addr, ready)
                    .await
                    .map_err(SetupError::Failover)?;
                self.forget_connections();
                Ok(())
            }
            (action, _) => Err(unsupported(&format!("{action:?}"))),
        }
    }

    async fn next_request(&mut self, _within_ms: u64) -> Result<Option<OutRequest>, AdapterError> {
        Err(unsupported("waiting for a request from the target"))
    }

    async fn respond(&mut self, _node: i32, _frame: Vec<u8>) -> Result<(), AdapterError> {
        Err(unsupported("answering the target"))
    }

    async fn next_release(&mut self, _within_ms: u64) -> Result<Option<(u64, u64)>, AdapterError> {
        Err(unsupported("observing user requests"))
    }

    async fn advance(&mut self, ms: u64) -> Result<(), AdapterError> {
        if ms > MAX_REAL_ADVANCE_MS {
            return Err(Unsupported::RealClock {
                what: "an advance of",
                ms,
                limit: MAX_REAL_ADVANCE_MS,
                hint: "",
            }
            .into());
        }
        tokio::time::sleep(Duration::from_millis(ms)).await;
        if let Some(p) = &self.policy {
            p.advance(ms);
        }
        Ok(())
    }

    fn now_ms(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    async fn refresh_events(&mut self) -> Result<(), AdapterError> {
        match &mut self.log {
            Some(log) => log.read().await,
            None => Ok(()),
        }
    }

    fn events(&self) -> Vec<Value> {
        let mut events = self
            .policy
            .as_ref()
            .map(PolicyScope::events)
            .unwrap_or_default();
        events.extend(
            self.log
                .as_ref()
                .map_or_else(Vec::new, |l| l.events.clone()),
        );
        events
    }
}

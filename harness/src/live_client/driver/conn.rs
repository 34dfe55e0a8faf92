//! The live client's connection tasks: opening one TCP connection (retrying until the loop
//! ends) and reading its response frames through `net::FrameStream`, each told to the loop
//! as a [`NetEvent`]; and the per-connection state the loop keeps ([`Conn`], [`Pending`]).
//! Decodes nothing past the frame and feeds no model (that is `wire.rs`).

use std::collections::VecDeque;
use std::time::Duration;

use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::codec::{limits::DEFAULT_MAX_FRAME_SIZE, ApiKey};
use crate::model::NodeId;
use crate::net::FrameStream;

/// Bound on opening one TCP connection.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// Pause before trying a bootstrap address again after its first connection failed.
const CONNECT_RETRY: Duration = Duration::from_millis(100);
/// Bound on writing one request frame.
pub(super) const WRITE_TIMEOUT: Duration = Duration::from_secs(5);

/// What the connection tasks tell the loop.
pub(super) enum NetEvent {
    Connected {
        node: NodeId,
        stream: TcpStream,
    },
    Frame {
        node: NodeId,
        generation: u64,
        /// Size prefix included.
        frame: Vec<u8>,
    },
    Closed {
        node: NodeId,
        generation: u64,
        reason: String,
    },
}

/// A request sent and not yet answered.
#[derive(Clone, Copy, Debug)]
pub(super) struct Pending {
    pub(super) correlation_id: i32,
    pub(super) api_key: ApiKey,
    pub(super) version: i16,
    /// The model timed it out: its answer, if it comes, is not the model's business.
    pub(super) stale: bool,
}

pub(super) struct Conn {
    pub(super) generation: u64,
    pub(super) write: OwnedWriteHalf,
    pub(super) reader: JoinHandle<()>,
    pub(super) pending: VecDeque<Pending>,
}

impl Drop for Conn {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

/// Opens the connection to `addr` for `node`, retrying a failed attempt until the loop ends.
pub(super) async fn connect(node: NodeId, addr: String, net: mpsc::UnboundedSender<NetEvent>) {
    loop {
        if let Ok(Ok(stream)) =
            tokio::time::timeout(CONNECT_TIMEOUT, TcpStream::connect(&addr)).await
        {
            let _ = stream.set_nodelay(true);
            let _ = net.send(NetEvent::Connected { node, stream });
            return;
        }
        if net.is_closed() {
            return;
        }
        tokio::time::sleep(CONNECT_RETRY).await;
    }
}

/// Reads response frames from one connection until it closes or cannot be framed; the
/// reason is the [`NetError`](crate::net::NetError)'s wording (it names the broker's address).
pub(super) async fn read_frames(
    node: NodeId,
    generation: u64,
    r: OwnedReadHalf,
    net: mpsc::UnboundedSender<NetEvent>,
) {
    let peer = r
        .peer_addr()
        .map_or_else(|_| "the broker".to_owned(), |a| a.to_string());
    let mut frames = FrameStream::new(r, peer, DEFAULT_MAX_FRAME_SIZE);
    let reason = loop {
        match frames.next(None).await {
            Ok(frame) => {
                let _ = net.send(NetEvent::Frame {
                    node,
                    generation,
                    frame,
                });
            }
            Err(e) => break e.to_string(),
        }
    };
    let _ = net.send(NetEvent::Closed {
        node,
        generation,
        reason,
    });
}

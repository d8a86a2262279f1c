//! The in-process transport: a client and a server in one process, connected by a
//! [`pipe`] of whole JSON-RPC messages (no socket, no process, no line framing), with the
//! semantics of stdio and both eras.

pub use crate::base::pipe::{
    DEFAULT_PIPE_CAPACITY, PipeClosed, PipeEnd, PipeReceiver, PipeSender, pipe,
};

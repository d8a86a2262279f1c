//! Legacy HTTP sessions. Serving is stateless for now: no `Mcp-Session-Id` is issued, and
//! the session seam (`SessionStore`) plugs in here.

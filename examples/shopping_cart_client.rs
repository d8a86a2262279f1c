//! Parallel sessions against the stateful shopping cart: several shoppers, each a separate
//! `Client` with its own `Mcp-Session-Id`, add their own items at the same
//! time; every cart must hold exactly its own shopper's items.
//!
//! ```text
//! cargo run --example shopping_cart                          # in one terminal
//! cargo run --example shopping_cart_client [URL] [SHOPPERS]  # in another
//! ```
//!
//! The URL comes from the first argument, else `MCP_URL`, else `http://127.0.0.1:9090/mcp`;
//! `SHOPPERS` defaults to 4. Exits with status 1 when a cart holds another shopper's item
//! (or misses one of its own).

use std::process::ExitCode;

use mcp_examples::cart_demo;

/// Where the shopping cart example listens by default.
const DEFAULT_URL: &str = "http://127.0.0.1:9090/mcp";

#[tokio::main]
async fn main() -> Result<ExitCode, cart_demo::DemoError> {
    mcp_examples::init_tracing();
    let mut args = std::env::args().skip(1);
    let url = args
        .next()
        .or_else(|| std::env::var("MCP_URL").ok())
        .unwrap_or_else(|| DEFAULT_URL.to_owned());
    let shoppers = match args.next() {
        Some(n) => n.parse().map_err(|e| format!("SHOPPERS {n:?}: {e}"))?,
        None => 4,
    };
    if shoppers == 0 {
        return Err("SHOPPERS must be at least 1".into());
    }
    println!("{shoppers} shoppers, {url}");
    let carts = cart_demo::parallel_carts(&url, shoppers).await?;
    let mut ok = cart_demo::sessions_are_distinct(&carts);
    if !ok {
        println!("two shoppers were given the same session");
    }
    for cart in &carts {
        let items: Vec<_> = cart
            .cart
            .items
            .iter()
            .map(|i| format!("{} x{}", i.name, i.quantity))
            .collect();
        println!(
            "shopper {} ({:?}, session {}): {} (total {})",
            cart.shopper,
            cart.era,
            cart.session_id.as_deref().unwrap_or("none"),
            items.join(", "),
            cart.cart.total_quantity
        );
        let foreign = cart.foreign_items();
        if !foreign.is_empty() {
            println!("  holds another shopper's items: {}", foreign.join(", "));
        }
        let missing = cart.missing_items();
        if !missing.is_empty() {
            println!("  misses its own items: {}", missing.join(", "));
        }
        ok &= cart.is_isolated();
    }
    if ok {
        println!("every cart holds exactly its own shopper's items");
        Ok(ExitCode::SUCCESS)
    } else {
        Ok(ExitCode::FAILURE)
    }
}

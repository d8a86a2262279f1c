//! Parallel shopping sessions through [`mcp::client::Client`]: several
//! shoppers, each a separate client with its own legacy HTTP session on the stateful
//! [shopping cart](crate::shopping_cart), add their own items at the same time, then read
//! their carts back. Used by `cargo run --example shopping_cart_client` and by the tests.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use mcp::Implementation;
use mcp::client::{Client, ClientConfig, ProtocolMode};
use mcp::protocol::{Era, StructuredContentError};
use serde_json::json;
use tokio::sync::Barrier;

use crate::shopping_cart::{Cart, CartItem};

/// The products shoppers pick from; shopper `n` adds `"{product}-{n}"`, so every item names
/// the shopper who added it.
pub const PRODUCTS: [&str; 6] = ["apple", "pear", "plum", "fig", "kiwi", "lime"];

/// How many different items each shopper adds.
pub const ITEMS_PER_SHOPPER: usize = 3;

/// An error of the demo.
pub type DemoError = Box<dyn std::error::Error + Send + Sync>;

/// One shopper's session and what its cart held at the end.
#[derive(Clone, Debug, PartialEq)]
pub struct ShopperCart {
    /// The shopper's number (1-based).
    pub shopper: usize,
    /// The era the client negotiated (the cart is legacy-only, so `Legacy`).
    pub era: Era,
    /// The `Mcp-Session-Id` the server issued to this shopper.
    pub session_id: Option<String>,
    /// What the shopper added: item name → quantity.
    pub added: BTreeMap<String, u32>,
    /// The cart as `list_items` returned it after every shopper had finished adding.
    pub cart: Cart,
}

impl ShopperCart {
    /// Items in the cart that this shopper did not add (another session's items).
    pub fn foreign_items(&self) -> Vec<&str> {
        self.cart
            .items
            .iter()
            .filter(|i| !self.added.contains_key(&i.name))
            .map(|i| i.name.as_str())
            .collect()
    }

    /// Items this shopper added that are missing from the cart or have another quantity.
    pub fn missing_items(&self) -> Vec<&str> {
        self.added
            .iter()
            .filter(|&(name, quantity)| {
                !self
                    .cart
                    .items
                    .iter()
                    .any(|i| &i.name == name && i.quantity == *quantity)
            })
            .map(|(name, _)| name.as_str())
            .collect()
    }

    /// Whether the cart holds exactly what this shopper added (and its total adds up).
    pub fn is_isolated(&self) -> bool {
        self.foreign_items().is_empty()
            && self.missing_items().is_empty()
            && self.cart.items.len() == self.added.len()
            && self.cart.total_quantity == self.added.values().sum::<u32>()
    }
}

/// The items shopper `n` adds, with their quantities (1, 2, 3, …).
pub fn items_of(shopper: usize) -> BTreeMap<String, u32> {
    (0..ITEMS_PER_SHOPPER)
        .map(|k| {
            let product = PRODUCTS[(shopper + k) % PRODUCTS.len()];
            (format!("{product}-{shopper}"), k as u32 + 1)
        })
        .collect()
}

/// Runs `shoppers` clients against the shopping cart at `url`, all at once: each connects
/// (auto mode: the `server/discover` probe, then the legacy fallback), adds its items
/// concurrently, waits until every shopper has added, lists its cart and closes its
/// session. Returns the carts in shopper order.
pub async fn parallel_carts(url: &str, shoppers: usize) -> Result<Vec<ShopperCart>, DemoError> {
    // Everyone has connected before anyone adds, and everyone has added before anyone
    // lists: the sessions are all alive and busy at the same time.
    let connected = Arc::new(Barrier::new(shoppers));
    let added = Arc::new(Barrier::new(shoppers));
    let tasks: Vec<_> = (1..=shoppers)
        .map(|shopper| {
            let url = url.to_owned();
            let connected = Arc::clone(&connected);
            let added = Arc::clone(&added);
            tokio::spawn(async move { shop(&url, shopper, &connected, &added).await })
        })
        .collect();
    let mut carts = Vec::with_capacity(shoppers);
    for task in tasks {
        carts.push(task.await??);
    }
    Ok(carts)
}

async fn shop(
    url: &str,
    shopper: usize,
    connected: &Barrier,
    added: &Barrier,
) -> Result<ShopperCart, DemoError> {
    let client = Client::new(url, ClientConfig::new().protocol_mode(ProtocolMode::Auto))?;
    let result = async {
        let info = client
            .connect(Implementation::new(
                format!("shopper-{shopper}"),
                env!("CARGO_PKG_VERSION"),
            ))
            .await?;
        connected.wait().await;
        let items = items_of(shopper);
        // All of this shopper's adds in flight at once, on its one session.
        let adds = items.iter().map(|(name, quantity)| {
            let call = client.call("add_item").arguments(&CartItem {
                name: name.clone(),
                quantity: *quantity,
            });
            async move { call?.await }
        });
        for result in join_all(adds).await? {
            cart_of(&result?)?;
        }
        added.wait().await;
        let cart = cart_of(&client.call("list_items").arguments(json!({}))?.await?)?;
        Ok::<_, DemoError>(ShopperCart {
            shopper,
            era: info.era(),
            session_id: info.session_id().map(str::to_owned),
            added: items,
            cart,
        })
    }
    .await;
    let closed = client.close().await;
    let cart = result?;
    closed?;
    Ok(cart)
}

/// Runs every future concurrently (each spawned on the runtime); the outputs in order.
async fn join_all<F>(futures: impl IntoIterator<Item = F>) -> Result<Vec<F::Output>, DemoError>
where
    F: std::future::Future + Send + 'static,
    F::Output: Send + 'static,
{
    let handles: Vec<_> = futures.into_iter().map(tokio::spawn).collect();
    let mut out = Vec::with_capacity(handles.len());
    for handle in handles {
        out.push(handle.await?);
    }
    Ok(out)
}

/// The cart a tool returned: its structured content when present, else its text (a legacy
/// result carries the cart as JSON text).
pub fn cart_of(result: &mcp::CallToolResult) -> Result<Cart, DemoError> {
    if result.is_error() {
        return Err(format!("the cart tool failed: {}", result.joined_text()).into());
    }
    match result.structured::<Cart>() {
        Err(StructuredContentError::Missing) => Ok(serde_json::from_str(&result.joined_text())?),
        structured => Ok(structured?),
    }
}

/// Every session id in `carts` is present and different.
pub fn sessions_are_distinct(carts: &[ShopperCart]) -> bool {
    let ids: BTreeSet<_> = carts
        .iter()
        .filter_map(|c| c.session_id.as_deref())
        .collect();
    ids.len() == carts.len()
}

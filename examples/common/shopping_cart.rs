//! The seed's stateful shopping cart: every legacy session has its own cart, kept in the
//! session (`mcp::Session`), so carts of parallel clients stay apart.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A line of the cart.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CartItem {
    /// Product name.
    pub name: String,
    /// How many.
    pub quantity: u32,
}

/// The cart's contents.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Cart {
    /// The lines, in the order they were added.
    pub items: Vec<CartItem>,
    /// Total number of units.
    pub total_quantity: u32,
}

const CART: &str = "cart";

/// The shopping cart service (stateful: legacy clients must initialize and keep their
/// session).
#[derive(Clone, Copy, Debug, Default)]
pub struct ShoppingCart;

#[mcp::service(
    name = "shopping-cart",
    version = "1.0.0",
    instructions = "A shopping cart per session: add, remove and list items.",
    protocol_mode = "legacy",
    session_mode = "stateful",
    session_limits(idle_timeout_secs = 900, max_per_owner = 20, max_anonymous = 2000)
)]
impl ShoppingCart {
    /// Add an item to the cart (quantities of the same product add up).
    ///
    /// # Arguments
    ///
    /// * `name` - The product
    /// * `quantity` - How many (default 1)
    pub async fn add_item(
        &self,
        session: mcp::Session,
        name: String,
        quantity: Option<u32>,
    ) -> Result<Cart, mcp::ToolError> {
        let quantity = quantity.unwrap_or(1);
        if quantity == 0 {
            return Err(mcp::ToolError::new("quantity must be at least 1"));
        }
        let cart = session
            .update(CART, |cart: Option<Cart>| {
                let mut cart = cart.unwrap_or_default();
                match cart.items.iter_mut().find(|i| i.name == name) {
                    Some(line) => line.quantity = line.quantity.saturating_add(quantity),
                    None => cart.items.push(CartItem {
                        name: name.clone(),
                        quantity,
                    }),
                }
                cart.total_quantity = cart.items.iter().map(|i| i.quantity).sum();
                cart
            })
            .await?;
        Ok(cart)
    }

    /// Remove an item from the cart.
    ///
    /// # Arguments
    ///
    /// * `name` - The product to remove
    pub async fn remove_item(
        &self,
        session: mcp::Session,
        name: String,
    ) -> Result<Cart, mcp::ToolError> {
        let (cart, removed) = session
            .update_with(CART, |cart: Option<Cart>| {
                let mut cart = cart.unwrap_or_default();
                let before = cart.items.len();
                cart.items.retain(|i| i.name != name);
                cart.total_quantity = cart.items.iter().map(|i| i.quantity).sum();
                let removed = cart.items.len() < before;
                (cart, removed)
            })
            .await?;
        if !removed {
            return Err(mcp::ToolError::new(format!("{name} is not in the cart")));
        }
        Ok(cart)
    }

    /// List the items in the cart.
    pub async fn list_items(&self, session: mcp::Session) -> Result<Cart, mcp::ToolError> {
        Ok(session.get(CART).await?.unwrap_or_default())
    }

    /// Empty the cart.
    pub async fn clear_cart(&self, session: mcp::Session) -> Result<Cart, mcp::ToolError> {
        session.remove(CART).await?;
        Ok(Cart::default())
    }
}

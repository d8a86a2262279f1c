//! The client demos' logic against in-process servers: parallel shopping sessions through
//! `mcp::client::Client` (`examples/common/cart_demo.rs`, which the
//! `shopping_cart_client` example runs too) must keep every cart apart.

mod interop_support;

use std::collections::BTreeSet;

use interop_support::TestServer;
use mcp::protocol::Era;
use mcp_examples::cart_demo::{self, ITEMS_PER_SHOPPER, ShopperCart, items_of};
use mcp_examples::shopping_cart::{Cart, CartItem, ShoppingCart};

fn report(carts: &[ShopperCart]) -> String {
    carts
        .iter()
        .map(|c| format!("{c:?}"))
        .collect::<Vec<_>>()
        .join("\n")
}

async fn parallel_sessions(shoppers: usize) {
    let server = TestServer::start(|_| mcp::Server::builder(ShoppingCart)).await;
    let carts = tokio::time::timeout(
        std::time::Duration::from_secs(60),
        cart_demo::parallel_carts(&server.url, shoppers),
    )
    .await
    .expect("the demo finished within 60 s")
    .unwrap_or_else(|e| panic!("the demo failed: {e}"));
    let report = report(&carts);
    assert_eq!(carts.len(), shoppers, "{report}");
    // Every shopper fell back to the legacy era (the cart is legacy-only) and got its own
    // session.
    for (i, cart) in carts.iter().enumerate() {
        assert_eq!(cart.shopper, i + 1, "{report}");
        assert_eq!(cart.era, Era::Legacy, "{report}");
        let id = cart
            .session_id
            .as_deref()
            .unwrap_or_else(|| panic!("shopper {} got no Mcp-Session-Id\n{report}", cart.shopper));
        assert!(!id.is_empty(), "{report}");
    }
    assert!(cart_demo::sessions_are_distinct(&carts), "{report}");
    let ids: BTreeSet<_> = carts.iter().map(|c| c.session_id.clone()).collect();
    assert_eq!(ids.len(), shoppers, "{report}");
    // Each cart holds exactly its shopper's items, with the quantities it added.
    for cart in &carts {
        assert!(
            cart.foreign_items().is_empty(),
            "shopper {} sees another session's items {:?}\n{report}",
            cart.shopper,
            cart.foreign_items()
        );
        assert!(
            cart.missing_items().is_empty(),
            "shopper {} lost its items {:?}\n{report}",
            cart.shopper,
            cart.missing_items()
        );
        assert!(cart.is_isolated(), "{report}");
        let expected = items_of(cart.shopper);
        assert_eq!(expected.len(), ITEMS_PER_SHOPPER);
        let mut got: Vec<_> = cart.cart.items.clone();
        got.sort_by(|a, b| a.name.cmp(&b.name));
        let want: Vec<_> = expected
            .iter()
            .map(|(name, quantity)| CartItem {
                name: name.clone(),
                quantity: *quantity,
            })
            .collect();
        assert_eq!(got, want, "shopper {}\n{report}", cart.shopper);
        assert_eq!(cart.cart.total_quantity, 6, "1 + 2 + 3\n{report}");
        for item in &cart.cart.items {
            assert!(
                item.name.ends_with(&format!("-{}", cart.shopper)),
                "{report}"
            );
        }
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_parallel_sessions_keep_their_carts_apart() {
    parallel_sessions(4).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sixteen_parallel_sessions_keep_their_carts_apart() {
    parallel_sessions(16).await;
}

/// The isolation check itself: a cart with another shopper's item, or without one of its
/// own, is reported (so the demo and the test above can fail).
#[test]
fn the_isolation_check_catches_leaks() {
    let added = items_of(1);
    let own: Vec<_> = added
        .iter()
        .map(|(name, quantity)| CartItem {
            name: name.clone(),
            quantity: *quantity,
        })
        .collect();
    let total = added.values().sum();
    let clean = ShopperCart {
        shopper: 1,
        era: Era::Legacy,
        session_id: Some("a".into()),
        added: added.clone(),
        cart: Cart {
            items: own.clone(),
            total_quantity: total,
        },
    };
    assert!(clean.is_isolated());
    assert!(clean.foreign_items().is_empty());

    let mut leaked = clean.clone();
    leaked.cart.items.push(CartItem {
        name: "apple-2".into(),
        quantity: 1,
    });
    leaked.cart.total_quantity += 1;
    assert_eq!(leaked.foreign_items(), vec!["apple-2"]);
    assert!(!leaked.is_isolated());

    let mut lost = clean.clone();
    let gone = lost.cart.items.remove(0);
    lost.cart.total_quantity -= gone.quantity;
    assert_eq!(lost.missing_items(), vec![gone.name.as_str()]);
    assert!(!lost.is_isolated());

    let mut miscounted = clean.clone();
    miscounted.cart.items[0].quantity += 1;
    miscounted.cart.total_quantity += 1;
    assert!(!miscounted.is_isolated());

    let same_session = vec![
        clean.clone(),
        ShopperCart {
            shopper: 2,
            ..clean
        },
    ];
    assert!(!cart_demo::sessions_are_distinct(&same_session));
}

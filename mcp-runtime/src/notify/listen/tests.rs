//! Unit tests of the listener registry, its filters and its bounds.
use super::*;
use crate::session::Owner;

fn all() -> Honourable {
    Honourable {
        tools: true,
        prompts: true,
        resources: true,
        subscribe: true,
        tasks: true,
    }
}

#[test]
fn the_honoured_subset_follows_the_capabilities() {
    let requested: Requested = serde_json::from_value(json!({
        "toolsListChanged": true, "promptsListChanged": false, "resourcesListChanged": true,
        "resourceSubscriptions": ["a://x"], "bogus": 1
    }))
    .unwrap();
    let only_tools = Honourable {
        tools: true,
        ..Honourable::default()
    };
    assert_eq!(
        Filter::honour(requested, only_tools).1,
        json!({"toolsListChanged": true})
    );
    let requested: Requested =
        serde_json::from_value(json!({"resourceSubscriptions": ["a://x"]})).unwrap();
    let (f, _) = Filter::honour(requested, all());
    assert!(f.accepts(&Change::ResourceUpdated {
        uri: "a://x".into()
    }));
    assert!(!f.accepts(&Change::ResourceUpdated {
        uri: "a://x/".into()
    }));
    assert!(!f.accepts(&Change::ToolsListChanged));
}

fn hub(settings: &super::super::Settings) -> Arc<super::super::Hub> {
    super::super::Hub::new(settings, Arc::default(), None, all(), JsonObject::new())
}

fn usage(hub: &super::super::Hub) -> (usize, usize, usize) {
    hub.listeners.audit()
}

#[tokio::test]
async fn the_ten_thousand_and_first_listener_is_refused() {
    let hub = hub(&super::super::Settings::default());
    let params = json!({"notifications": {"toolsListChanged": true}});
    let mut open = Vec::new();
    for i in 0..super::super::DEFAULT_MAX_LISTENERS {
        let caller = Caller::Connection(i as u64);
        open.push(Listeners::open(&hub, &json!(i), params.as_object(), &caller, false).unwrap());
    }
    let caller = Caller::Anonymous;
    let refused =
        Listeners::open(&hub, &json!("one more"), params.as_object(), &caller, false).err();
    assert_eq!(refused, Some(limit_reached()));
    assert_eq!(limit_reached().code, ErrorCode::INTERNAL_ERROR);
    assert_eq!(limit_reached().message, "Subscription limit reached");
    drop(open.pop());
    assert!(Listeners::open(&hub, &json!("again"), params.as_object(), &caller, false).is_ok());
}

/// `count` URIs of `len` bytes each, all different.
fn uris(count: usize, len: usize) -> Vec<String> {
    (0..count)
        .map(|i| format!("{i:0len$}", len = len))
        .collect()
}

#[test]
fn each_bound_refuses_with_its_setting_named() {
    let settings = super::super::Settings {
        listen_limits: Limits {
            uris: 3,
            uri_bytes: 10,
            listeners_per_caller: 2,
            bytes_per_caller: 2_000,
            bytes: 3_000,
        },
        ..super::super::Settings::default()
    };
    let hub = hub(&settings);
    let open = |id: i64, filter: Value, caller: &Caller| {
        Listeners::open(
            &hub,
            &json!(id),
            json!({"notifications": filter}).as_object(),
            caller,
            false,
        )
    };
    let a = Caller::Connection(1);
    let message = |r: Result<Opened, ErrorObject>| {
        let e = r.err().expect("refused");
        assert_eq!(e.code, ErrorCode::INVALID_PARAMS);
        e.message
    };
    assert_eq!(
        message(open(1, json!({"resourceSubscriptions": uris(4, 1)}), &a)),
        "Invalid params: resourceSubscriptions has 4 URIs; the limit is 3 (ServerBuilder::max_listen_uris)"
    );
    assert_eq!(
        message(open(
            1,
            json!({"resourceSubscriptions": ["a", "bbbbbbbbbbb"]}),
            &a
        )),
        "Invalid params: resourceSubscriptions[1] is 11 bytes long; the limit is 10 (ServerBuilder::max_listen_uri_bytes)"
    );
    // Counted on the request, duplicates and all, before the filter's parse.
    assert!(
        open(
            1,
            json!({"resourceSubscriptions": ["a", "a", "a", "a"]}),
            &a
        )
        .is_err()
    );
    assert_eq!(
        message(open(
            1,
            json!({"resourceSubscriptions": ["a", 1, 2, 3]}),
            &a
        )),
        "Invalid params: resourceSubscriptions has 4 URIs; the limit is 3 (ServerBuilder::max_listen_uris)"
    );
    assert_eq!(usage(&hub), (0, 0, 0));
    let first = open(1, json!({"toolsListChanged": true}), &a).unwrap();
    let second = open(2, json!({"toolsListChanged": true}), &a).unwrap();
    assert_eq!(
        message(open(3, json!({"toolsListChanged": true}), &a)),
        "Invalid params: this caller has 2 listen streams open; the limit is 2 (ServerBuilder::max_listeners_per_caller)"
    );
    drop((first, second));
    assert_eq!(usage(&hub), (0, 0, 0));
    // A filter of three 10-byte URIs and a long id: what it costs.
    let big = json!({"resourceSubscriptions": uris(3, 10)});
    let long = "x".repeat(100);
    let opened = Listeners::open(
        &hub,
        &json!(long),
        json!({"notifications": big}).as_object(),
        &a,
        false,
    )
    .unwrap();
    let cost = usage(&hub).2;
    assert_eq!(
        cost,
        opened.ack.len()
            + opened.result.len()
            + opened.overflow_error.len()
            + long.len()
            + 2
            + 3 * (10 + URI_OVERHEAD)
    );
    assert!(cost > 1_000 && cost < 2_000, "{cost}");
    let refused = Listeners::open(
        &hub,
        &json!(long),
        json!({"notifications": big}).as_object(),
        &a,
        false,
    );
    assert_eq!(
        message(refused),
        format!(
            "Invalid params: this listen takes {cost} bytes and this caller's open listens take {cost}; the limit is 2000 (ServerBuilder::max_listen_bytes_per_caller)"
        )
    );
    let b = Caller::Connection(2);
    let other = Listeners::open(
        &hub,
        &json!(long),
        json!({"notifications": big}).as_object(),
        &b,
        false,
    )
    .unwrap();
    let c = Caller::Connection(3);
    let refused = Listeners::open(
        &hub,
        &json!(long),
        json!({"notifications": big}).as_object(),
        &c,
        false,
    );
    assert_eq!(
        message(refused),
        format!(
            "Invalid params: this listen takes {cost} bytes, more than the server has left for listen filters; the limit is 3000 in all (ServerBuilder::max_listen_bytes)"
        )
    );
    assert_eq!(usage(&hub), (2, 2, 2 * cost));
    drop(opened);
    assert_eq!(usage(&hub), (1, 1, cost));
    drop(other);
    assert_eq!(usage(&hub), (0, 0, 0));
}

#[test]
fn budgets_come_back_however_a_listener_ends() {
    let hub = hub(&super::super::Settings {
        listener_queue: 1,
        ..super::super::Settings::default()
    });
    let caller = Caller::Address("2001:db8::1".parse().unwrap());
    let params =
        json!({"notifications": {"toolsListChanged": true, "resourceSubscriptions": ["a://x"]}});
    // Ended by the server (close_all), dropped for not reading, ended by the client.
    let closed = Listeners::open(&hub, &json!(1), params.as_object(), &caller, false).unwrap();
    hub.listeners.close_all();
    assert_eq!(usage(&hub).0, 0);
    assert_eq!(usage(&hub).1, 1, "counted until its stream ends");
    let overflowing = Listeners::open(&hub, &json!(2), params.as_object(), &caller, false).unwrap();
    hub.listeners.dispatch(&Change::ToolsListChanged);
    hub.listeners.dispatch(&Change::ToolsListChanged);
    assert!(overflowing.overflow.load(Ordering::Relaxed));
    let plain = Listeners::open(&hub, &json!(3), params.as_object(), &caller, false).unwrap();
    assert!(usage(&hub).2 > 0);
    drop((closed, overflowing, plain));
    assert_eq!(usage(&hub), (0, 0, 0));
    // An empty honoured filter ends at once and is charged nothing.
    let empty = json!({"notifications": {"resourceSubscriptions": []}});
    let opened = Listeners::open(&hub, &json!(4), empty.as_object(), &caller, false).unwrap();
    assert!(opened.empty);
    assert_eq!(usage(&hub), (0, 0, 0));
}

#[test]
fn callers_are_told_apart_by_identity_then_address_block() {
    let v6 = |s: &str| Caller::http(Owner::Anonymous.identity(), Some(s.parse().unwrap()));
    assert_eq!(v6("2001:db8::1"), v6("2001:db8::ffff:1"));
    assert_ne!(v6("2001:db8::1"), v6("2001:db8:0:1::1"));
    assert_eq!(v6("::ffff:192.0.2.7"), v6("192.0.2.7"));
    assert_ne!(v6("192.0.2.7"), v6("192.0.2.8"));
    let user = Owner::user("alice");
    assert_eq!(
        Caller::http(user.identity(), Some("192.0.2.7".parse().unwrap())),
        Caller::http(user.identity(), Some("192.0.2.8".parse().unwrap()))
    );
    assert_eq!(
        Caller::http(Owner::Anonymous.identity(), None),
        Caller::Anonymous
    );
    assert_ne!(Caller::connection(), Caller::connection());
}

#[test]
fn updates_match_through_the_set_and_the_ack_keeps_the_request_order() {
    let hub = hub(&super::super::Settings::default());
    let list = ["z://last", "a://first", "m://mid", "a://first"];
    let params = json!({"notifications": {"resourceSubscriptions": list}});
    let caller = Caller::Anonymous;
    let opened = Listeners::open(&hub, &json!(1), params.as_object(), &caller, false).unwrap();
    let ack: Value = serde_json::from_str(&opened.ack).unwrap();
    assert_eq!(
        ack["params"]["notifications"]["resourceSubscriptions"],
        json!(list)
    );
    let registry = hub.listeners.lock();
    let filter = &registry.map.values().next().unwrap().filter;
    assert_eq!(filter.uris.len(), 3);
    for uri in list {
        assert!(filter.accepts(&Change::ResourceUpdated { uri: uri.into() }));
    }
    assert!(!filter.accepts(&Change::ResourceUpdated {
        uri: "a://firs".into()
    }));
}

#[test]
fn a_full_queue_drops_the_listener_after_what_it_holds() {
    let hub = super::super::Hub::new(
        &super::super::Settings {
            listener_queue: 2,
            ..super::super::Settings::default()
        },
        Arc::default(),
        None,
        all(),
        JsonObject::new(),
    );
    let params = json!({"notifications": {"toolsListChanged": true}});
    let mut opened = Listeners::open(
        &hub,
        &json!(1),
        params.as_object(),
        &Caller::Anonymous,
        false,
    )
    .unwrap();
    for _ in 0..3 {
        hub.listeners.dispatch(&Change::ToolsListChanged);
    }
    assert_eq!(hub.listeners.len(), 0);
    assert!(opened.overflow.load(Ordering::Relaxed));
    assert!(opened.receiver.try_recv().is_ok());
    assert!(opened.receiver.try_recv().is_ok());
    assert!(opened.receiver.try_recv().is_err());
}

#[test]
fn messages_are_stamped_with_the_listen_id() {
    let updated = Change::ResourceUpdated {
        uri: "a://\"quoted\"\n".into(),
    };
    let parse = |m: String| serde_json::from_str::<Value>(&m).unwrap();
    assert_eq!(
        parse(change_message(&updated, Some(r#""listen:0""#))),
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
               "params": {"uri": "a://\"quoted\"\n", "_meta": {SUBSCRIPTION_ID: "listen:0"}}})
    );
    assert_eq!(
        parse(change_message(&Change::ToolsListChanged, Some("7"))),
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
               "params": {"_meta": {SUBSCRIPTION_ID: 7}}})
    );
    assert_eq!(
        parse(change_message(&updated, None)),
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
               "params": {"uri": "a://\"quoted\"\n"}})
    );
    assert_eq!(
        parse(change_message(&Change::PromptsListChanged, None)),
        json!({"jsonrpc": "2.0", "method": "notifications/prompts/list_changed"})
    );
}

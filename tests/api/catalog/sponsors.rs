//! `/sponsors/`: boolean filters and the name order.

use super::*;
use crate::support::*;

#[test]
fn sponsors_boolean_and_name_order() {
    let sample = Sample::new();
    let conn = sample.conn();
    let ds = dataset();
    for (value, want) in [
        ("true", true),
        ("TRUE", true),
        ("1", true),
        ("false", false),
        ("0", false),
    ] {
        let got = all_items(&conn, "sponsors", &format!("is_member={value}"));
        let n = ds
            .sponsors
            .iter()
            .filter(|(_, x)| x.is_member == want)
            .count();
        assert_eq!(got.len(), n, "{value}");
    }
    let spec = catalog::list_spec("sponsors").unwrap();
    let err = catalog::parse_query(spec, &pairs("is_member=yes")).unwrap_err();
    assert_eq!(
        (err[0].param.as_str(), err[0].kind),
        ("is_member", "bool_parsing")
    );
    let mut names: Vec<(String, String, usize)> = ds
        .sponsors
        .iter()
        .enumerate()
        .map(|(i, (_, x))| (x.name.to_lowercase(), x.name.clone(), i))
        .collect();
    names.sort();
    let got = all_items(&conn, "sponsors", "");
    assert_eq!(
        pluck(&got, "name"),
        names.iter().map(|n| n.1.clone()).collect::<Vec<_>>()
    );
    let gold = all_items(&conn, "sponsors", "member_type=Gold&sponsor_type=gold");
    assert!(gold.iter().all(|g| g["sponsor_type"] == "Gold"));
}

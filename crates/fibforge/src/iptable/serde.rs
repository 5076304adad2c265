//! `serde` support (feature `serde`): an [`IpTable`] is a sequence of `(network, value)`
//! pairs in [`IpTable::iter`]'s order; networks as `ipnet` writes them (text in
//! human-readable formats). Reading one compiles the table once, on the default structure.

use super::IpTable;
use ipnet::IpNet;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::hash::Hash;

impl<V: Serialize> Serialize for IpTable<V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl<'de, V: Deserialize<'de> + Clone + Eq + Hash> Deserialize<'de> for IpTable<V> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let routes = Vec::<(IpNet, V)>::deserialize(deserializer)?;
        let mut table = IpTable::new();
        table.try_extend(routes).map_err(serde::de::Error::custom)?;
        Ok(table)
    }
}

//! Lists the state keeps per key for as long as the workspace lives: a parent thread's
//! handoffs, a turn's tool calls, the send times of a sender and a thread. Many hold one item,
//! and a retained workspace keeps them all. `Vec::push` makes room for four items at its first
//! allocation (std's smallest capacity for items this size), so a list of one held three empty
//! slots for good — for a closed child thread's one tool call, three of 72 bytes natively and
//! of 36 on wasm32. Such a list starts with room for one item; from its second on it grows as
//! `Vec` does.

/// A new list with room for one item: `entry(key).or_insert_with(lists::for_one)`.
pub(crate) fn for_one<T>() -> Vec<T> {
    Vec::with_capacity(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_of_one_holds_no_empty_slot() {
        let mut list = for_one();
        list.push([1u64; 9]);
        assert_eq!(list.capacity(), 1);
        list.extend([[2; 9], [3; 9]]);
        assert_eq!(list, [[1; 9], [2; 9], [3; 9]]);
    }
}

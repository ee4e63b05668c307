// Package bufpool keeps byte buffers for the next call of a long-lived
// process: aw mcp reads and encodes tens of KiB per small call, and fresh
// buffers of that size are zeroed and collected on every call, pooled ones
// are not.
package bufpool

import "sync"

// A new buffer has room for at least minCap bytes, so that one pool serves
// the usual requests of every size below it; maxCap bounds what is kept: a
// buffer that grew past it (a rare large result) is left to the collector.
const (
	minCap = 64 << 10
	maxCap = 4 << 20
)

var pool sync.Pool

// Get is an empty buffer with room for at least n bytes, from the pool
// when one there is big enough.
func Get(n int) *[]byte {
	if b, ok := pool.Get().(*[]byte); ok {
		if cap(*b) >= n {
			*b = (*b)[:0]
			return b
		}
		pool.Put(b)
	}
	b := make([]byte, 0, max(n, minCap))
	return &b
}

// Put gives b back; nothing may use it afterwards.
func Put(b *[]byte) {
	if c := cap(*b); c > 0 && c <= maxCap {
		pool.Put(b)
	}
}

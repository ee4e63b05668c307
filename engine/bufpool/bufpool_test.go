package bufpool

import "testing"

// A buffer from Get is empty with the room asked for, whatever was put
// back before it; one past the bound is not kept.
func TestGetHasRoom(t *testing.T) {
	for _, n := range []int{0, 10, 64 << 10, 10, 1 << 20, 5} {
		b := Get(n)
		if len(*b) != 0 || cap(*b) < n {
			t.Fatalf("Get(%d): len %d cap %d", n, len(*b), cap(*b))
		}
		*b = append(*b, make([]byte, n)...)
		Put(b)
	}
	big := make([]byte, 0, maxCap+1)
	Put(&big)
	for range 3 {
		if b := Get(0); cap(*b) > maxCap {
			t.Fatalf("a buffer over the bound was kept: cap %d", cap(*b))
		}
	}
}

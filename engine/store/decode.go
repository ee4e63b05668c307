package store

import "encoding/binary"

// Decoder reads the varints and length-prefixed bytes of a binary record
// aw wrote (a snapshot manifest, a search index's manifest). A short or
// malformed read sets Err and empties the rest, so a damaged record decodes
// to zero values and an error, never a panic.
type Decoder struct {
	b       []byte
	corrupt error
	err     error
}

// NewDecoder decodes b; corrupt is the error a damaged record reports.
func NewDecoder(b []byte, corrupt error) *Decoder { return &Decoder{b: b, corrupt: corrupt} }

// Err is the first failed read's error, or nil.
func (d *Decoder) Err() error { return d.err }

// Len is how many bytes are left.
func (d *Decoder) Len() int { return len(d.b) }

func (d *Decoder) fail() { d.err, d.b = d.corrupt, nil }

// Uvarint reads an unsigned varint.
func (d *Decoder) Uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

// Varint reads a signed varint.
func (d *Decoder) Varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

// Bytes reads n bytes (nil when fewer are left). The slice shares the
// record's memory.
func (d *Decoder) Bytes(n uint64) []byte {
	if n > uint64(len(d.b)) {
		d.fail()
		return nil
	}
	out := d.b[:n]
	d.b = d.b[n:]
	return out
}

// String reads a length-prefixed string.
func (d *Decoder) String() string { return string(d.Bytes(d.Uvarint())) }

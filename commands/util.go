package commands

import "io"

func readAll(r io.Reader) ([]byte, error) { return io.ReadAll(r) }

// optionalString is a flag bound to a *string field, so "not given" (nil)
// and "given empty" stay distinct.
type optionalString struct{ p **string }

func (o optionalString) String() string {
	if o.p == nil || *o.p == nil {
		return ""
	}
	return **o.p
}

func (o optionalString) Set(s string) error { *o.p = &s; return nil }

func (o optionalString) Type() string { return "string" }

//go:build !unix

package mcpserver

import "io"

// Pollable returns in: only unix pipes are made non-blocking.
func Pollable(in io.Reader) io.Reader { return in }

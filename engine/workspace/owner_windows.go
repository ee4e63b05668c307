//go:build windows

package workspace

import "io/fs"

// Windows ACLs are not inspected; the location check still applies.
func ownershipProblem(fi fs.FileInfo) string { return "" }

//go:build !linux

package command

// becomeSubreaper: only Linux has child subreapers; elsewhere orphans go
// to init and reapOrphans finds none.
func becomeSubreaper() {}

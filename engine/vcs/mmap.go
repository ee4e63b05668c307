package vcs

import (
	"errors"
	"syscall"

	"github.com/agentic-workspace/aw/engine/store"
)

// mapFile maps a pack file read-only, so a lookup in a large .idx costs a
// few page faults, not the whole file. Where files are not mapped, packs
// are read through go-git's storage instead; an empty file is no pack.
func mapFile(path string) ([]byte, func(), error) {
	if !store.Mapped {
		return nil, nil, errors.ErrUnsupported
	}
	b, unmap, err := store.MapFile(path)
	if err == nil && len(b) == 0 {
		return nil, nil, syscall.EINVAL
	}
	return b, unmap, err
}

package edit

import (
	"errors"
	"syscall"
)

// isNotDir reports ENOTDIR: a parent of the path is a file, so the path
// does not exist.
func isNotDir(err error) bool { return errors.Is(err, syscall.ENOTDIR) }

package command

import "golang.org/x/sys/unix"

// becomeSubreaper makes the processes a job leaves behind (a sandbox's
// inner init once its outer process is gone) this process's children
// rather than init's, so reapOrphans can wait for them and reap them.
func becomeSubreaper() { unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) }

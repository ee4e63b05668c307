//go:build !windows

package workspace

import (
	"io/fs"
	"os"
	"strconv"
	"syscall"
)

func ownershipProblem(fi fs.FileInfo) string {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return "it is owned by uid " + strconv.Itoa(int(st.Uid)) + ", not by the current user"
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Nlink > 1 {
		return "it has " + strconv.FormatUint(uint64(st.Nlink), 10) + " hard links, and another name for it may lie where an agent can write"
	}
	if fi.Mode().Perm()&0o044 != 0 {
		return "it is readable by group or others (chmod 600 it)"
	}
	return ""
}

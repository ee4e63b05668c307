//go:build awcrash

package edit

import (
	"os"
	"strconv"
	"syscall"
)

// The test build of aw (go build -tags awcrash) dies with SIGKILL at the
// step AW_CRASH_AT names: "commit.journal", "commit.file.3", ...
var crashAt = os.Getenv("AW_CRASH_AT")

func crashPoint(name string) {
	if name == crashAt {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // the signal is on its way
	}
}

func crashPointN(name string, n int) { crashPoint(name + "." + strconv.Itoa(n)) }

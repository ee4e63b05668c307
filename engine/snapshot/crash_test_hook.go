//go:build awcrash

package snapshot

import (
	"os"
	"syscall"
)

// The test build of aw (go build -tags awcrash) dies with SIGKILL at the
// step AW_CRASH_AT names: "snapshot.blob" (a blob written, not yet in
// place) or "snapshot.manifest" (blobs durable, the manifest not written).
var crashAt = os.Getenv("AW_CRASH_AT")

func crashPoint(name string) {
	if name == crashAt {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // the signal is on its way
	}
}

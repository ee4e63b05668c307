//go:build !unix

package browser

import (
	"errors"
	"os/exec"
	"time"
)

// Browser sessions need Unix process groups and /proc-style liveness
// checks; elsewhere open refuses with a clear message.
const supported = false

func detach(cmd *exec.Cmd)                                      {}
func stop(pid int)                                              {}
func strays(dir string) map[string][]int                        { return nil }
func alive(pid int, start uint64) bool                          { return false }
func Leftovers(pgid int, profile string) []int                  { return nil }
func terminate(pgid int, profile string, _ time.Duration) []int { return nil }
func lockFile(path string, nowait ...bool) (func(), error) {
	return nil, errors.New("browser sessions are not supported on this system")
}

//go:build !unix

package policy

import "time"

func cpuTime() int64 { return time.Now().UnixNano() }

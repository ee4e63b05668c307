//go:build !unix

package main

import "os"

// maxRSS is not measured where getrusage does not exist.
func maxRSS(*os.ProcessState) int64 { return 0 }

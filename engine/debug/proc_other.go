//go:build !unix

package debug

import "os/exec"

func ownGroup(*exec.Cmd) {}

func killGroup(int) {}

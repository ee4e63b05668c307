//go:build !unix

package lsp

import "os/exec"

func serverAttr(*exec.Cmd) {}

func killGroup(int) {}

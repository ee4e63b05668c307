// Command aw is the agentic workspace command line.
package main

import (
	"os"

	"github.com/agentic-workspace/aw/commands"
	"github.com/agentic-workspace/aw/engine/sandbox"
)

func main() {
	// The Landlock fallback's parent: aw re-executed by the sandbox,
	// before any command-line machinery.
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		os.Exit(sandbox.Helper(os.Args[2:]))
	}
	os.Exit(commands.Main(os.Args[1:]))
}

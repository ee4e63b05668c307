// Command aw is the agentic workspace command line.
package main

import (
	"os"

	"github.com/agentic-workspace/aw/commands"
)

func main() { os.Exit(commands.Main(os.Args[1:])) }

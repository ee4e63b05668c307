//go:build !linux

package sandbox

// HelperArg is the hidden argument of the Landlock fallback's parent,
// which exists only on Linux.
const HelperArg = "__sandbox-landlock"

func landlockArgv(abi int, p *Policy, argv []string) ([]string, error) {
	return nil, &Denied{Reason: "Landlock exists only on Linux"}
}

func landlockGaps(abi int, p *Policy) []string { return nil }

// Helper is the Landlock fallback's parent; there is none here.
func Helper(args []string) int { return 126 }

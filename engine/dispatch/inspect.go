package dispatch

func inspectActions() []*Action { return nil }

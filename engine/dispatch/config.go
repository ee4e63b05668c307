package dispatch

func configActions() []*Action { return nil }

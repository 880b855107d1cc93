"""Clark, Khandelwal, Levy, Manning 2019, "What Does BERT Look At?": the science of every Clark rule."""

"""Training on data the project generates: ``saycan_adapter`` fits a LoRA adapter of the
embedded model to the SayCan example bank's dialogs."""

"""Reading data: arrays from data frames, CSV and Parquet files, the bundled datasets."""

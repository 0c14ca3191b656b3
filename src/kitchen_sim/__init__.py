"""kitchen_sim"""

"""SayCanPay (Hazra, Dos Martires, De Raedt, "SayCanPay: Heuristic Planning with Large Language Models
using Learnable Domain Knowledge", arXiv 2308.12682): Say (language model) x Can (learned feasibility)
x Pay (learned payoff), decoded greedily over tokens, greedily over actions or by a beam over actions."""

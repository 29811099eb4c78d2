// SPDX-License-Identifier: MIT
pragma solidity 0.8.26;

import {ERC20} from "./ERC20.sol";

/// @title QuoteToken
/// @notice A plain ERC-20 the devnet uses as a quote asset (stablecoin, tokenized stock). The deployer
/// may mint, so the devnet can fund its accounts; nothing else is special.
contract QuoteToken is ERC20 {
    uint8 public immutable decimals;
    address public immutable minter;
    uint256 public totalSupply;

    error NotMinter();

    constructor(string memory name_, string memory symbol_, uint8 decimals_) ERC20(name_, symbol_) {
        decimals = decimals_;
        minter = msg.sender;
    }

    function mint(address to, uint256 amount) external {
        if (msg.sender != minter) revert NotMinter();
        totalSupply += amount;
        _credit(to, amount);
    }
}
